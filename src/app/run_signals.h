// Signals while `hloscope run` runs a program: passed on to the program
// (its whole process group when it has one of its own), and, once it has
// ended, taken as "stop checking" (run_command.cc prints the summary of
// what was checked and removes its folder).
#ifndef HLOSCOPE_APP_RUN_SIGNALS_H_
#define HLOSCOPE_APP_RUN_SIGNALS_H_

#include <signal.h>
#include <sys/types.h>

#include <iterator>

namespace hloscope {

// Installs the handler for INT, QUIT, TERM and HUP for the run and
// restores what was there after it. A signal that was ignored when
// hloscope started (`nohup hloscope run …`) stays ignored, for the program
// too, as it would be without hloscope; the others get their defaults in
// the program (exec resets handlers). One at a time.
class SignalsForChild {
 public:
  static constexpr int kSignals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};

  SignalsForChild();
  ~SignalsForChild();
  SignalsForChild(const SignalsForChild&) = delete;
  SignalsForChild& operator=(const SignalsForChild&) = delete;

  // The set to block from before the program is spawned until Started():
  // a signal in between is delivered, and passed on, once it is known.
  static sigset_t Blocked();
  void Started(pid_t child, bool own_group);
  // The program has ended (reaped): a signal now stops the checking.
  void Ended();
  // A signal came after the program had ended: stop checking.
  static bool Interrupted();

 private:
  struct sigaction saved_[std::size(kSignals)] = {};
};

// Whether hloscope is the foreground job of a terminal: then the program
// stays in hloscope's process group, so that the terminal's Ctrl-C and its
// reads of the terminal work as without hloscope.
bool ForegroundOfATerminal();

}  // namespace hloscope

#endif  // HLOSCOPE_APP_RUN_SIGNALS_H_
