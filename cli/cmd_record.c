/* cmd_record.c -- `mprof record [-o TRACE] [--size N] -- PROGRAM ARGS...`:
 * run an unmodified libuv program under the LD_PRELOAD shim
 * libmprof_uv_preload.so (src/uv), with MPROF_TRACE pointing at TRACE, and
 * exit with the program's status.  See docs/libuv.md.  With --watch it
 * follows the trace while the program runs, as `mprof watch` does
 * (watch.h), its captures and the trace in the directory -o names. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../src/uv/uv_probe.h"
#include "../src/unix/tsc.h"
#include "cli.h"
#include "watch.h"

/* Where the shim is: in the build tree next to this mprof, or installed. */
#ifndef MPROF_PRELOAD_INSTALLED
#define MPROF_PRELOAD_INSTALLED "/usr/local/lib/libmprof_uv_preload.so"
#endif

static const char help[] =
    "usage: mprof record [-o TRACE] [--size N] -- PROGRAM [ARGS...]\n"
    "       mprof record --watch [RULE]... [--before DUR] [--after DUR]\n"
    "                    [--max N] [-o DIR] [--size N] -- PROGRAM [ARGS...]\n"
    "Run PROGRAM, a dynamically linked libuv program, with the libuv tracing\n"
    "shim preloaded, recording into TRACE, a file (-o; default trace.ctf; %p\n"
    "in it becomes the process id).  A TRACE there already is kept as\n"
    "TRACE.old.  N is the trace size, as 8M (default) or 512K, at least 64K.\n"
    "PROGRAM and TRACE's directory are checked before PROGRAM starts.  At\n"
    "the end, lists the traces of the process tree that hold events\n"
    "(children write TRACE.PID), removes the empty ones and writes\n"
    "TRACE.manifest, which report, stats, export and view read as one\n"
    "trace.  Exits with PROGRAM's exit status (128+N if killed by signal N),\n"
    "or before it starts with 2 (usage) or 3 (PROGRAM or TRACE unusable).\n"
    "MPROF_PRELOAD names another shim; MPROF_MODE, MPROF_CLOCK and\n"
    "MPROF_FORK pass through (docs/libuv.md).\n"
    "--watch [RULE]: follow the trace while PROGRAM runs, as mprof watch\n"
    "does, and save a capture when a finding matches a RULE (as mprof watch\n"
    "--on takes it; --watch alone: every error and warning; repeat it for\n"
    "more rules): -o then names a directory (default: .) that gets the\n"
    "trace of the whole run, DIR/trace.ctf, and the captures,\n"
    "DIR/capture-N.ctf and DIR/capture-N.json, one line each on stdout.\n"
    "--before, --after and --max are mprof watch's (a capture holds the\n"
    "ring from --before the finding, default 2s, to --after it, default\n"
    "0.5s; at most --max captures, default 10).\n"
    "examples:\n"
    "  mprof record -- ./server --port 8080\n"
    "  mprof record -o /tmp/run-%p.ctf --size 64M -- node app.js\n"
    "  mprof record --watch 'loop_blocked>50ms' --watch stalled -o runs -- "
    "./server\n";

/* The shim's path: MPROF_PRELOAD, else the build tree's if this mprof is
 * the build tree's, else the installed one. */
static const char *preload_path(void) {
  const char *path = getenv("MPROF_PRELOAD");
  if (path && *path) return path;
#ifdef MPROF_PRELOAD_BUILD
  if (cli_in_build_tree()) return MPROF_PRELOAD_BUILD;
#endif
  return MPROF_PRELOAD_INSTALLED;
}

/* A size as the recorder reads MPROF_SIZE: digits, then K, M or G; its
 * bytes (saturated), or 0 if it is none. */
static unsigned long long size_bytes(const char *text) {
  size_t digits = strspn(text, "0123456789");
  if (!digits || digits > 12 ||
      (text[digits] && (!strchr("KMGkmg", text[digits]) || text[digits + 1])))
    return 0;
  unsigned long long bytes = strtoull(text, NULL, 10);
  switch (text[digits]) {
  case 'G':
  case 'g': return bytes << 30;
  case 'M':
  case 'm': return bytes << 20;
  case 'K':
  case 'k': return bytes << 10;
  default: return bytes;
  }
}

/* 0 if size (NULL: the default) is a size the recorder takes, else
 * CLI_USAGE after saying why. */
static int size_check(const char *size) {
  if (!size) return CLI_OK;
  unsigned long long bytes = size_bytes(size);
  if (!bytes)
    return cli_fail(CLI_USAGE, "record", "--size",
                    "%s is not a size; give "
                    "one like 8M or 512K",
                    size);
  if (bytes < MPROF_MIN_SIZE)
    return cli_fail(CLI_USAGE, "record", "--size",
                    "%s is below the least "
                    "trace size, 64K; give 64K or more",
                    size);
  return CLI_OK;
}

/* Whether path is a file that exec can run: 0 or errno's reason. */
static int runnable(const char *path) {
  struct stat st;
  if (stat(path, &st) < 0) return errno;
  if (S_ISDIR(st.st_mode)) return EISDIR;
  return access(path, X_OK) < 0 ? errno : 0;
}

/* The file execvp() runs for name (searched in PATH when it has no '/')
 * into path[0 .. size); CLI_OK, or CLI_FAILED after saying why there is
 * none, before anything starts. */
static int program_find(const char *name, char *path, size_t size) {
  if (strchr(name, '/')) {
    int why = runnable(name);
    snprintf(path, size, "%s", name);
    if (why == EACCES)
      return cli_fail(CLI_FAILED, "record", name,
                      "not executable; chmod +x "
                      "it, or record the program that runs it (sh, node)");
    if (why == EISDIR)
      return cli_fail(CLI_FAILED, "record", name,
                      "a directory; give the program in it");
    if (why)
      return cli_fail(CLI_FAILED, "record", name,
                      "%s; give the program's "
                      "path",
                      strerror(why));
    return CLI_OK;
  }
  const char *dirs = getenv("PATH");
  for (dirs = dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; *dirs;) {
    size_t length = strcspn(dirs, ":");
    int n = length ? snprintf(path, size, "%.*s/%s", (int)length, dirs, name)
                   : snprintf(path, size, "./%s", name);
    if (n > 0 && (size_t)n < size && !runnable(path)) return CLI_OK;
    dirs += length + (dirs[length] == ':');
  }
  return cli_fail(CLI_FAILED, "record", name,
                  "no such program in PATH; give its path, as ./%s", name);
}

/* 0 if path is no file yet or a regular one, else CLI_FAILED after
 * saying so: the shim would put its trace file in place of a device
 * (/dev/null) or a link. */
static int trace_is_file(const char *path) {
  struct stat st;
  if (lstat(path, &st) < 0 || S_ISREG(st.st_mode)) return CLI_OK;
  return cli_fail(CLI_FAILED, "record", path,
                  "not a regular file; a trace "
                  "is one: name another -o");
}

/* A trace at path from an earlier run becomes path.old, as perf record
 * keeps perf.data.old; the earlier run's manifest, which would name the
 * new trace, goes.  A pattern with %p names a new file each run. */
static int keep_previous(const char *path) {
  struct stat st;
  char old[PATH_MAX + sizeof ".manifest"]; /* path, a suffix added */
  if (strstr(path, "%p") || lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
    return CLI_OK;
  snprintf(old, sizeof old, "%s.old", path);
  if (rename(path, old) < 0)
    return cli_fail(CLI_FAILED, "record", path, "keeping it as %s: %s", old,
                    strerror(errno));
  snprintf(old, sizeof old, "%s.manifest", path);
  unlink(old);
  fputs("mprof record: the previous trace is now ", stderr);
  cli_put_name(stderr, path);
  fputs(".old\n", stderr);
  return CLI_OK;
}

/* LD_PRELOAD with the shim first, then whatever was preloaded already. */
static int set_preload(const char *shim) {
  const char *old = getenv("LD_PRELOAD");
  if (!old || !*old) return setenv("LD_PRELOAD", shim, 1);
  size_t size = strlen(shim) + strlen(old) + 2;
  char *both = malloc(size);
  if (!both) return -1;
  snprintf(both, size, "%s:%s", shim, old);
  int result = setenv("LD_PRELOAD", both, 1);
  free(both);
  return result;
}

/* The signals a service manager or a person sends to stop or steer a
 * program: mprof record passes them on to its program, so that a kill of
 * mprof record stops the program as it would stop it alone.  SIGINT and
 * SIGQUIT are left out: a terminal sends them to the whole process group,
 * the program included, and they would come twice. */
static const int passed_on[] = {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};
#define PASSED_ON_COUNT (sizeof passed_on / sizeof *passed_on)

/* The program, once started: where the signals above go. */
static volatile pid_t program_pid;

static void pass_on(int signum) {
  if (program_pid > 0) kill(program_pid, signum);
}

/* Handlers for the signals to pass on, the old ones into old[]; the
 * signals stay blocked until pass_on_unblock(), so that one sent before
 * the program's pid is known is passed on once it is. */
static void pass_on_install(struct sigaction *old, sigset_t *unblocked) {
  struct sigaction forward = {.sa_handler = pass_on, .sa_flags = SA_RESTART};
  sigset_t block;
  sigemptyset(&forward.sa_mask);
  sigemptyset(&block);
  for (size_t i = 0; i < PASSED_ON_COUNT; i++) {
    sigaction(passed_on[i], &forward, &old[i]);
    sigaddset(&block, passed_on[i]);
  }
  sigprocmask(SIG_BLOCK, &block, unblocked);
}

static void pass_on_restore(const struct sigaction *old) {
  for (size_t i = 0; i < PASSED_ON_COUNT; i++)
    sigaction(passed_on[i], &old[i], NULL);
}

/* The program started: whether it has exited, as a watch asks. */
typedef struct program_s {
  pid_t pid;
  int status; /* waitpid()'s, once reaped */
  int reaped;
} program_t;

static int program_exited(void *context) {
  program_t *p = context;
  if (!p->reaped && waitpid(p->pid, &p->status, WNOHANG) != 0) p->reaped = 1;
  return p->reaped;
}

/* Run argv, waiting as system() does but passing on the signals above,
 * and meanwhile follow its trace with watch (NULL: none); its exit code
 * for us, its pid into *pid. */
static int run_program(char **argv, pid_t *pid, cli_watch_t *watch,
                       const char *trace) {
  struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int, old_quit;
  struct sigaction old_passed[PASSED_ON_COUNT];
  sigset_t unblocked;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  pass_on_install(old_passed, &unblocked);
  pid_t child = *pid = fork();
  if (child == 0) {
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    pass_on_restore(old_passed);
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
    execvp(argv[0], argv);
    fprintf(stderr, "mprof record: ");
    cli_put_escaped(stderr, argv[0], strlen(argv[0]));
    fprintf(stderr, ": %s\n", strerror(errno));
    _exit(127);
  }
  program_pid = child;
  sigprocmask(SIG_SETMASK, &unblocked, NULL);
  program_t program = {child, 0, child < 0};
  if (watch && child > 0) /* its problems are told: the status stays */
    cli_watch_follow(watch, trace, program_exited, &program);
  while (!program.reaped)
    program.reaped = waitpid(child, &program.status, 0) >= 0 || errno != EINTR;
  int status = program.status;
  program_pid = 0;
  pass_on_restore(old_passed);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGQUIT, &old_quit, NULL);
  if (child < 0) {
    fprintf(stderr, "mprof record: fork: %s\n", strerror(errno));
    return CLI_FAILED;
  }
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* A file time from now on (file times come from the coarse clock, which
 * may lag the fine one by a tick). */
static int64_t now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static void put_path(const char *path) {
  cli_put_escaped(stderr, path, strlen(path));
}

/* How many of the traces hold events. */
static size_t count_with_events(const mprof_tree_trace_t *traces,
                                size_t count) {
  size_t with_events = 0;
  for (size_t i = 0; i < count; i++)
    with_events += !traces[i].empty && !traces[i].unreadable;
  return with_events;
}

/* The traces that hold events, one line each: "  PATH: PROCESS, pid PID,
 * N events". */
static void list_traces(const mprof_tree_trace_t *traces, size_t count) {
  for (size_t i = 0; i < count; i++) {
    if (traces[i].empty || traces[i].unreadable) continue;
    fputs("  ", stderr);
    put_path(traces[i].path);
    fputs(": ", stderr);
    cli_put_escaped(stderr, traces[i].process, strlen(traces[i].process));
    fprintf(stderr, ", pid %lld, %" PRIu64 " events\n", traces[i].pid,
            traces[i].events);
  }
}

/* Remove the traces where nothing happened, saying which. */
static void remove_empty(const mprof_tree_trace_t *traces, size_t count) {
  for (size_t i = 0; i < count; i++) {
    if (!traces[i].empty) continue;
    fputs("mprof record: removed ", stderr);
    put_path(traces[i].path);
    if (unlink(traces[i].path) < 0)
      fprintf(stderr, " (failed: %s)", strerror(errno));
    fprintf(stderr, ": no events but the shim's names (%" PRIu64 ")\n",
            traces[i].events);
  }
}

/* The traces whose writer died without stopping (killed, crashed) end
 * at ended_ns, when record saw its program's tree gone. */
static void mark_ended(const mprof_tree_trace_t *traces, size_t count,
                       int64_t ended_ns) {
  for (size_t i = 0; i < count; i++)
    if (!traces[i].empty && !traces[i].unreadable &&
        mprof_trace_mark_ended(traces[i].path, ended_ns) == MPROF_EIO) {
      fputs("mprof record: ", stderr);
      put_path(traces[i].path);
      fprintf(stderr, ": cannot say when it ended: %s\n", strerror(errno));
    }
}

/* Why a program may leave no trace with events. */
static void tell_nothing_seen(const char *program) {
  fputs("mprof record: ", stderr);
  cli_put_name(stderr, program);
  fputs(": the shim saw no libuv call, so there is no trace to view\n"
        "  (a program without libuv, with libuv linked in statically, or one\n"
        "  that exited before its loop ran)\n",
        stderr);
}

/* What the tree wrote: list it, remove the empty traces and write the
 * manifest of the others.  A problem is told, and changes no exit status:
 * mprof record exits with the program's. */
static void tell_tree(const char *pattern, const char *program, pid_t top,
                      int64_t since_ns, int status) {
  mprof_tree_trace_t *traces;
  size_t count;
  char manifest[4096] = "";
  int problems = 0; /* told by the reader */
  int64_t ended_ns = now_ns();
  fprintf(stderr, "mprof record: program exited with status %d\n", status);
  int err = mprof_trace_tree_find(pattern, top, since_ns, cli_count_problem,
                                  &problems, &traces, &count);
  if (err) {
    fprintf(stderr, "mprof record: finding the traces of %s: %s\n", pattern,
            err == MPROF_EIO ? strerror(errno) : mprof_strerror(err));
    return;
  }
  mark_ended(traces, count, ended_ns);
  size_t listed = count_with_events(traces, count);
  if (listed) {
    fputs("mprof record: the traces with events:\n", stderr);
    list_traces(traces, count);
  }
  remove_empty(traces, count);
  err = listed ? mprof_trace_tree_manifest_write(pattern, top, traces, count,
                                                 manifest, sizeof manifest)
               : 0;
  mprof_trace_tree_free(traces, count);
  if (err) {
    int why = errno;
    fputs("mprof record: ", stderr);
    cli_put_name(stderr, manifest[0] ? manifest : pattern);
    fprintf(stderr, ": %s\n", mprof_output_error(why));
    return;
  }
  if (!listed) {
    tell_nothing_seen(program);
    return;
  }
  fputs("mprof record: all of them on one time axis: ", stderr);
  put_path(manifest);
  fputs("\n  view it:  mprof report ", stderr);
  put_path(manifest);
  fputs("\n            mprof view ", stderr);
  put_path(manifest);
  fputs("\n", stderr);
}

/* Run argv as it is, with no trace. */
static int run_untraced(char **argv) {
  pid_t pid;
  return run_program(argv, &pid, NULL, NULL);
}

/* Whether the shim can see program's libuv calls; if not, says why in
 * one line. */
static int shim_can_see(const char *program, const char *path) {
  const char *why;
  switch (mprof_uv_probe_file(path)) {
  case MPROF_UV_PROBE_STATIC:
    why = "is statically linked: no preloaded library reaches it";
    break;
  case MPROF_UV_PROBE_LIBUV_INSIDE:
    why = "has libuv linked into itself: the shim sees only a shared libuv";
    break;
  default: return 1;
  }
  fputs("mprof record: ", stderr);
  cli_put_name(stderr, program);
  fprintf(stderr, ": %s; running it untraced\n", why);
  return 0;
}

/* The TSC's frequency, measured once here (10 ms, where the CPU does not
 * declare it) and passed down in MPROF_TSC_HZ, so that no process of the
 * tree waits to measure it (docs/recording.md).  A frequency already set
 * (an outer mprof record's, the user's) stays.  -1 if setenv fails. */
static int pass_tsc_hz(void) {
  const char *clock = getenv("MPROF_CLOCK");
  if (getenv(MPROF__TSC_HZ_ENV) || (clock && !strcmp(clock, "monotonic")))
    return 0;
  char hz[24];
  snprintf(hz, sizeof hz, "%llu", (unsigned long long)mprof__tsc_hz());
  return setenv(MPROF__TSC_HZ_ENV, hz, 1);
}

/* What the command line asks for. */
typedef struct record_options_s {
  const char *output, *size; /* -o, --size: NULL unless given */
  cli_watch_t *watch;        /* made by --watch or a watch's limit */
  const char *limit;         /* a watch's limit given (--before...), or NULL */
  int watching;              /* --watch given */
} record_options_t;

/* The watch of o, made at its first option: 0 or an exit code. */
static int make_watch(record_options_t *o, const char *option) {
  if (!o->watch && !(o->watch = cli_watch_new("record")))
    return cli_fail(CLI_FAILED, "record", option, "%s", strerror(ENOMEM));
  return CLI_OK;
}

/* A --watch, the watch made at the first, and its rule if one follows:
 * --watch=RULE, or a next word that is no option.  0 or an exit code. */
static int watch_option(record_options_t *o, int argc, char **argv) {
  int code = make_watch(o, "--watch");
  if (code) return code;
  o->watching = 1;
  const char *rule = optarg;
  if (!rule && optind < argc && argv[optind][0] != '-') rule = argv[optind++];
  return rule ? cli_watch_rule(o->watch, "--watch", rule) : CLI_OK;
}

/* --before, --after or --max (option character c) with its value. */
static int watch_limit(record_options_t *o, int c, const char *value) {
  o->limit = c == 'b' ? "--before" : c == 'a' ? "--after" : "--max";
  int code = make_watch(o, o->limit);
  return code ? code : cli_watch_limit(o->watch, o->limit, value);
}

/* 0, -1 once the help is printed, or an exit code after saying why. */
static int parse_options(record_options_t *o, int argc, char **argv) {
  static const struct option options[] = {{"output", required_argument, 0, 'o'},
                                          {"size", required_argument, 0, 's'},
                                          {"watch", optional_argument, 0, 'w'},
                                          {"before", required_argument, 0, 'b'},
                                          {"after", required_argument, 0, 'a'},
                                          {"max", required_argument, 0, 'm'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
  int c, code = CLI_OK;
  /* "+": the options end at PROGRAM, whose own options are its own. */
  while (!code &&
         (c = getopt_long(argc, argv, "+o:s:h", options, NULL)) != -1) {
    if (c == 'o')
      o->output = optarg;
    else if (c == 's')
      o->size = optarg;
    else if (c == 'w')
      code = watch_option(o, argc, argv);
    else if (c == 'b' || c == 'a' || c == 'm')
      code = watch_limit(o, c, optarg);
    else if (c == 'h')
      return fputs(help, stdout), -1;
    else
      return cli_option_error("record", argv, "+o:s:h");
  }
  if (!code && o->limit && !o->watching)
    return cli_fail(CLI_USAGE, "record", o->limit,
                    "is a watch's; give --watch too");
  if (!code && optind >= argc)
    return cli_missing("record", "PROGRAM", "-- ./server");
  return code;
}

/* Where the trace goes, into trace[0 .. size): -o, or with --watch
 * DIR/trace.ctf, DIR made to take the captures too.  0 or an exit code. */
static int place_trace(const record_options_t *o, char *trace, size_t size) {
  if (!o->watch) {
    snprintf(trace, size, "%s", o->output ? o->output : "trace.ctf");
    return CLI_OK;
  }
  const char *dir = o->output ? o->output : ".";
  int code = cli_watch_dir(o->watch, dir);
  if (!code && (size_t)snprintf(trace, size, "%s/trace.ctf", dir) >= size)
    code = cli_fail(CLI_USAGE, "record", dir, "too long a path");
  return code;
}

/* Check everything, then run argv[0] traced: an exit code. */
static int record(const record_options_t *o, char **argv) {
  char program[PATH_MAX], trace[PATH_MAX];
  int code = size_check(o->size);
  if (!code) code = program_find(argv[0], program, sizeof program);
  if (!code) code = place_trace(o, trace, sizeof trace);
  if (!code) code = cli_output_check("record", "-o", trace);
  if (!code) code = trace_is_file(trace);
  if (code) return code;
  const char *shim = preload_path();
  if (access(shim, R_OK)) {
    fprintf(stderr, "mprof record: %s: %s (set MPROF_PRELOAD to the shim)\n",
            shim, strerror(errno));
    return CLI_FAILED;
  }
  if (!shim_can_see(argv[0], program)) return run_untraced(argv);
  if (keep_previous(trace)) return CLI_FAILED;
  if (set_preload(shim) || setenv("MPROF_TRACE", trace, 1) ||
      (o->size && setenv("MPROF_SIZE", o->size, 1)) || pass_tsc_hz()) {
    fprintf(stderr, "mprof record: environment: %s\n", strerror(errno));
    return CLI_FAILED;
  }
  int64_t since_ns = now_ns();
  pid_t top;
  int status = run_program(argv, &top, o->watch, trace);
  if (top > 0) tell_tree(trace, argv[0], top, since_ns, status);
  return status;
}

int cmd_record(int argc, char **argv) {
  record_options_t options = {0};
  int code = parse_options(&options, argc, argv);
  if (!code) code = record(&options, argv + optind);
  cli_watch_free(options.watch);
  return code < 0 ? CLI_OK : code;
}
