#include "run_signals.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace hloscope {
namespace {

volatile sig_atomic_t g_child = 0;        // the program's pid while it runs
volatile sig_atomic_t g_own_group = 0;    // it leads a process group of its own
volatile sig_atomic_t g_interrupted = 0;  // a signal after the program ended: stop checking

// To the program, or to its whole process group when it has its own: a
// program run through `sh -c 'python …'` is sh's child, and a signal to sh
// alone leaves it running.
void SignalProgram(int sig) {
  pid_t child = static_cast<pid_t>(g_child);
  if (child > 0) kill(g_own_group ? -child : child, sig);
}

// Whether the program has exited, reaped or not: hloscope may still be
// checking what it dumped before it notices. Async-signal-safe (waitid);
// WNOWAIT leaves the status to the main loop's waitpid.
bool ProgramHasEnded() {
  siginfo_t ended{};
  if (waitid(P_PID, static_cast<id_t>(g_child), &ended, WEXITED | WNOHANG | WNOWAIT) == 0)
    return ended.si_pid != 0;
  return errno == ECHILD;  // reaped, and Ended() not yet called
}

// INT, QUIT, TERM and HUP while hloscope runs a program:
// - once the program has ended, they stop the checking: the summary of
//   what was checked is printed and the folder removed (exit 130);
// - TERM and HUP are passed on;
// - INT and QUIT from the terminal reach the program by themselves when it
//   shares hloscope's process group (hloscope only survives them, to print
//   the summary after it); sent by another process (`kill -INT`), or when
//   the program has a group of its own that the terminal cannot reach,
//   they are passed on.
// Whether the program has ended is asked before passing a signal on: a
// program that dies of it is not "interrupted checking".
void OnSignal(int sig, siginfo_t* info, void*) {
  int saved_errno = errno;
  if (g_child <= 0 || ProgramHasEnded()) {
    g_interrupted = 1;
  } else {
    // si_code <= 0: sent by a process (kill, sigqueue, tgkill), not the kernel's terminal driver.
    bool from_a_process = info && info->si_code <= 0 && info->si_pid != getpid();
    if (sig == SIGTERM || sig == SIGHUP || g_own_group || from_a_process) SignalProgram(sig);
  }
  errno = saved_errno;
}

}  // namespace

SignalsForChild::SignalsForChild() {
  g_child = 0;
  g_interrupted = 0;
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    sigaction(kSignals[i], nullptr, &saved_[i]);
    if (saved_[i].sa_handler == SIG_IGN) continue;
    struct sigaction handle {};
    handle.sa_sigaction = OnSignal;
    // SA_RESTART: a signal must not cut the summary's write to a full pipe.
    handle.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(kSignals[i], &handle, nullptr);
  }
}

SignalsForChild::~SignalsForChild() {
  g_child = 0;
  for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &saved_[i], nullptr);
}

sigset_t SignalsForChild::Blocked() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kSignals) sigaddset(&set, sig);
  return set;
}

void SignalsForChild::Started(pid_t child, bool own_group) {
  g_own_group = own_group ? 1 : 0;
  g_child = child;
}

void SignalsForChild::Ended() { g_child = 0; }

bool SignalsForChild::Interrupted() { return g_interrupted != 0; }

bool ForegroundOfATerminal() {
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO})
    if (isatty(fd)) return tcgetpgrp(fd) == getpgrp();
  return false;
}

}  // namespace hloscope
