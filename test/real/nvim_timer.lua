-- nvim_timer.lua -- run by headless neovim (its libuv: vim.loop) for
-- test_real.sh: a 5 ms timer ticks three times, then the file named by
-- $NVIM_READ is opened, read and closed with asynchronous fs requests and
-- its first line printed, and neovim quits.
local uv = vim.loop

local function read_file(path, done)
  uv.fs_open(path, 'r', 420, function(open_err, fd)
    assert(not open_err, open_err)
    uv.fs_read(fd, 4096, 0, function(read_err, data)
      assert(not read_err, read_err)
      uv.fs_close(fd, function()
        done(data)
      end)
    end)
  end)
end

local ticks = 0
local timer = uv.new_timer()
timer:start(5, 5, function()
  ticks = ticks + 1
  if ticks < 3 then
    return
  end
  timer:stop()
  timer:close()
  read_file(os.getenv('NVIM_READ'), vim.schedule_wrap(function(data)
    io.stdout:write('ticks ' .. ticks .. '\n')
    io.stdout:write('read: ' .. data:match('[^\n]*') .. '\n')
    vim.cmd('qa!')
  end))
end)
