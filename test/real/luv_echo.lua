-- luv_echo.lua PORTS_FILE -- an echo over TCP on 127.0.0.1 with lua-luv,
-- for test_real.sh: a 10 ms timer, then a server and a client in one loop;
-- the client sends "hello luv", the server answers it in capitals.  Writes
-- "SERVER_PORT CLIENT_PORT" to PORTS_FILE; prints only what does not vary.
local uv = require('luv')

local function echo_server()
  local server = uv.new_tcp()
  assert(server:bind('127.0.0.1', 0))
  assert(server:listen(8, function(err)
    assert(not err, err)
    local peer = uv.new_tcp()
    server:accept(peer)
    peer:read_start(function(read_err, data)
      assert(not read_err, read_err)
      if data then
        peer:write(data:upper(), function()
          peer:close()
          server:close()
        end)
      end
    end)
  end))
  return server:getsockname().port
end

local function client(port, ports_file)
  local socket = uv.new_tcp()
  socket:connect('127.0.0.1', port, function(err)
    assert(not err, err)
    local ports = io.open(ports_file, 'w')
    ports:write(port .. ' ' .. socket:getsockname().port .. '\n')
    ports:close()
    socket:read_start(function(read_err, data)
      assert(not read_err, read_err)
      if data then
        print('client got: ' .. data)
      else
        socket:close()
      end
    end)
    socket:write('hello luv')
  end)
end

local timer = uv.new_timer()
timer:start(10, 0, function()
  timer:close()
  print('timer fired')
  local port = echo_server()
  client(port, arg[1])
end)
uv.run()
print('loop done')
