// `hloscope run -- python train.py`: the program runs unchanged, with XLA
// dumping every compilation into a private folder; each optimized module is
// checked as soon as XLA has written it and its buffer assignment, and the
// summary is printed when the program exits.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "hloscope/app/commands.h"
#include "hloscope/parser/dump_naming.h"
#include "hloscope/report/run_words.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/found_file.h"
#include "hloscope/support/human_bytes.h"
#include "hloscope/support/output_file.h"
#include "run_bootstrap.h"
#include "run_profile.h"
#include "run_signals.h"

extern char** environ;

namespace hloscope {
namespace {

namespace fs = std::filesystem;

// The dump folder, scanned while the program runs.
class DumpWatcher {
 public:
  DumpWatcher(fs::path dir, const RunRequest& request, std::ostream& err)
      : dir_(std::move(dir)), request_(request), err_(err) {}

  // When a scan may take what is there as complete.
  enum class Moment : uint8_t {
    kRunning,   // files that did not grow since the last scan
    kCompiled,  // a compile call returned: its files are whole, but another
                // thread's compilation may still be writing (empty files)
    kExited,    // the program has exited: whatever is there
  };

  // Checks every module XLA has finished writing: its HLO and its buffer
  // assignment are there and did not grow since the last scan.
  // Returns how many modules were left because a file was still empty.
  int Scan(Moment moment) {
    bool final = moment != Moment::kRunning;
    int empty = 0;
    std::error_code ec;
    std::vector<fs::path> ready;
    std::string dir_real = ResolvedFolder(dir_.string());
    for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (!IsOptimizedDumpName(name) || done_.count(name)) continue;
      // One that did not parse is read again only once its files change.
      if (auto f = failed_.find(name); !final && f != failed_.end() && f->second == FileSizes(it->path()))
        continue;
      // A FIFO or a device under a dump's name would block the read; a link
      // out of the folder is not the program's dump (support/found_file.h).
      if (FoundFile verdict = CheckFoundFile(it->path().string(), dir_real);
          verdict != FoundFile::kReadable) {
        done_.insert(name);
        ++unreadable_;
        if (verdict == FoundFile::kOutside || verdict == FoundFile::kSystem)
          err_ << RunMessage(RunEvent::kSkipped, name, fmt::format("not read: {}", RefusalReason(verdict)))
               << "\n";
        else
          err_ << RunMessage(RunEvent::kNotAFile, name) << "\n";
        continue;
      }
      // Without dumps the program's bootstrap renames each file into place whole.
      if (!request_.buffer_assignment) {
        ready.push_back(it->path());
        continue;
      }
      fs::path ba = BufferAssignmentPathsFor(it->path().string()).front();
      std::error_code e1, e2;
      uintmax_t hlo_size = fs::file_size(it->path(), e1);
      uintmax_t ba_size = fs::file_size(ba, e2);
      // A file XLA has created but not yet written (under load, for a while).
      if (moment != Moment::kExited && (e1 || e2 || hlo_size == 0 || ba_size == 0)) {
        ++empty;
        continue;
      }
      if (!final) {
        auto& last = sizes_[name];
        bool stable = last == std::make_pair(hlo_size, ba_size);
        last = {hlo_size, ba_size};
        if (!stable) continue;
      }
      ready.push_back(it->path());
    }
    std::sort(ready.begin(), ready.end());
    for (const fs::path& p : ready) {
      if (SignalsForChild::Interrupted()) break;  // Ctrl-C after the program ended
      Check(p, final);
    }
    return empty;
  }

  // --raise: for each compile the program has reported (PID.N.compiled),
  // checks what is there and answers PID.N.verdict: the problems of the
  // compilations checked since the last answer, or nothing.
  void AnswerCompiles(const fs::path& sync) {
    std::error_code ec;
    std::vector<fs::path> asked;
    for (fs::directory_iterator it(sync, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".compiled") asked.push_back(it->path());
    if (asked.empty()) return;
    // The compile that asked has its files; one XLA has only created (seen
    // under load) is given up to 2 s to be written before the answer.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (Scan(Moment::kCompiled) > 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::vector<const RunRecord*> fresh;
    for (; answered_ < records_.size(); ++answered_) fresh.push_back(&records_[answered_]);
    std::string problems = RunRaiseAnswer(fresh);
    for (const fs::path& a : asked) {
      fs::path verdict = a;
      verdict.replace_extension(".verdict");
      {
        std::ofstream f(verdict.string() + ".part", std::ios::binary);
        f << problems;
      }
      fs::rename(verdict.string() + ".part", verdict, ec);
      fs::remove(a, ec);
      problems.clear();  // one answer carries them
    }
  }

  const std::vector<RunRecord>& records() const { return records_; }

  // The sizes of a dump's HLO and its buffer assignment (0 when absent).
  std::pair<uintmax_t, uintmax_t> FileSizes(const fs::path& hlo) const {
    std::error_code e1, e2;
    uintmax_t a = fs::file_size(hlo, e1), b = 0;
    if (request_.buffer_assignment) b = fs::file_size(BufferAssignmentPathsFor(hlo.string()).front(), e2);
    return {e1 ? 0 : a, e2 ? 0 : b};
  }
  int unreadable() const { return unreadable_; }

 private:
  // A dump that does not parse while the program runs may be half-written
  // by a writer that stalled: it is read again when its files change, and
  // at the end; only then is it skipped (and counted against --fail).
  void Check(const fs::path& path, bool final) {
    std::string name = path.filename().string();
    done_.insert(name);
    SessionRequest r;
    r.path = path.string();
    r.require_optimized = true;
    r.use_buffer_assignment = request_.buffer_assignment;
    Result<std::unique_ptr<Session>> s = Session::Open(r);
    if (!s.ok() && !final) {
      done_.erase(name);
      failed_[name] = FileSizes(path);
      return;
    }
    if (!s.ok()) {
      ++unreadable_;
      // hloscope found this file: where it fails, never its text.
      std::string why = UnquotedFoundFileError(s.error(), "this dump").Format();
      err_ << RunMessage(RunEvent::kSkipped, path.filename().string(), why) << "\n";
      return;
    }
    for (ModuleAnalysis* a : (*s)->Analyses()) {
      records_.push_back(SummarizeRun(a->check, path.filename().string(), request_.gates, request_.filter));
      if (request_.warn && !records_.back().problems.empty())
        err_ << RunWarning(records_.back()) << std::endl;
    }
  }

  fs::path dir_;
  const RunRequest& request_;
  std::ostream& err_;
  std::set<std::string> done_;
  std::map<std::string, std::pair<uintmax_t, uintmax_t>> sizes_;
  std::map<std::string, std::pair<uintmax_t, uintmax_t>> failed_;  // sizes when it last did not parse
  std::vector<RunRecord> records_;
  size_t answered_ = 0;  // records reported to the program (--raise)
  int unreadable_ = 0;
};

// A path inside XLA_FLAGS's double quotes: XLA reads a backslash there as
// an escape (checked: a flag value a<backslash>b dumped into "ab"), so a
// backslash and a quote are escaped.
std::string QuotedForXlaFlags(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

// The environment of the program: ours, with --xla_dump_to appended to
// XLA_FLAGS (XLA reads its flags left to right; the last one wins), and
// --xla_dump_include_timestamp: XLA numbers modules per process, so two
// worker processes compiling one function would write the same file
// names; the compile time XLA puts before each name (microseconds)
// keeps their dumps apart. --xla_dump_hlo_pass_re=spmd-partitioning adds
// the module as the partitioner received it (a sharded module's re-shard
// origins), unless the user gave their own pass regex. The user's flags
// that would keep modules out of the dump are overridden.
// Without the buffer assignment: no XLA flags; the bootstrap
// (run_bootstrap.h) first on PYTHONPATH writes each module's HLO to `dir`.
// --raise and --profile need the bootstrap too.
bool NeedsBootstrap(const RunRequest& request) {
  return !request.buffer_assignment || request.raise || request.profile;
}

std::vector<std::string> ChildEnvironment(const fs::path& dir, const fs::path& boot,
                                          const RunRequest& request) {
  const bool dumps = request.buffer_assignment;
  const bool bootstrap = NeedsBootstrap(request);
  std::vector<std::string> env;
  std::string flags, pythonpath;
  for (char** e = environ; e && *e; ++e) {
    std::string_view v(*e);
    if (v.starts_with("XLA_FLAGS=") && dumps)
      flags = std::string(v.substr(10));
    else if (v.starts_with("PYTHONPATH=") && bootstrap)
      pythonpath = std::string(v.substr(11));
    else
      env.emplace_back(v);
  }
  // The module before SPMD partitioning too (parser/dump_naming.h), for the
  // sharding behind each re-shard; a user's own pass regex is kept (it
  // would be replaced, not extended, by ours).
  std::string extra = flags.find("--xla_dump_hlo_pass_re") == std::string::npos
                          ? " --xla_dump_hlo_pass_re=spmd-partitioning"
                          : "";
  // A user's dump flags that would hide modules from the check are
  // overridden (the last value wins): without them `run --fail` passed
  // having checked nothing.
  for (const auto& [flag, value] :
       {std::pair{"--xla_dump_hlo_as_text", "true"}, std::pair{"--xla_dump_max_hlo_modules", "-1"},
        std::pair{"--xla_dump_hlo_module_re", "\".*\""}, std::pair{"--xla_dump_disable_metadata", "false"}})
    if (flags.find(flag) != std::string::npos) extra += fmt::format(" {}={}", flag, value);
  if (dumps)
    // Quoted: XLA splits XLA_FLAGS at spaces outside double quotes.
    env.push_back(fmt::format("XLA_FLAGS={}{}--xla_dump_to=\"{}\" --xla_dump_include_timestamp=true{}", flags,
                              flags.empty() ? "" : " ", QuotedForXlaFlags(dir.string()), extra));
  else
    env.push_back(fmt::format("HLOSCOPE_RUN_HLO_DIR={}", dir.string()));
  // Through `dir` (Folder::ForProgram): a worker that outlives the run
  // cannot recreate the removed folder by writing its trace.
  if (request.profile)
    env.push_back(fmt::format("HLOSCOPE_RUN_PROFILE_DIR={}", (dir / boot.filename() / "profile").string()));
  if (request.raise) {
    env.push_back(fmt::format("HLOSCOPE_RUN_SYNC_DIR={}", (boot / "sync").string()));
    // The bootstrap stops waiting for verdicts when this process is gone.
    env.push_back(fmt::format("HLOSCOPE_RUN_PID={}", getpid()));
  }
  if (bootstrap)
    env.push_back(fmt::format("PYTHONPATH={}{}{}", boot.string(), pythonpath.empty() ? "" : ":", pythonpath));
  env.push_back("HLOSCOPE_RUN=1");
  return env;
}

// The bootstrap, in a folder of its own beside the dumps (the watcher
// reads the top folder only).
bool WriteBootstrap(const fs::path& boot, std::ostream& err) {
  std::error_code ec;
  fs::create_directories(boot / "sync", ec);
  std::ofstream f(boot / "sitecustomize.py", std::ios::binary | std::ios::trunc);
  // The name the program gives each module's HLO (parser/dump_naming.h).
  std::string text(kRunBootstrap);
  constexpr std::string_view kFormat = "@RUN_HLO_FILE_FORMAT@";
  text.replace(text.find(kFormat), kFormat.size(), kRunHloFileFormat);
  f << text;
  f.close();
  if (ec || !f) {
    err << RunMessage(RunEvent::kCannotWrite, (boot / "sitecustomize.py").string()) << "\n";
    return false;
  }
  return true;
}

// The dump folder of one run. Move-only: whatever path leaves
// RunRunCommand (an early error, an exception such as bad_alloc from a
// check) releases it.
struct Folder {
  fs::path path;
  bool temporary = false;
  std::string error;  // why there is no folder
  // --keep-dumps: this run's claim on the folder (kRunLock), and the
  // identity of the file it created, so that only that file is removed.
  fs::path lock;
  dev_t lock_dev = 0;
  ino_t lock_ino = 0;
  // A temporary folder: held open, so that the program reaches it through
  // /proc/PID/fd/N of this process (ForProgram).
  int fd = -1;

  Folder() = default;
  Folder(Folder&& o) noexcept
      : path(std::move(o.path)),
        temporary(std::exchange(o.temporary, false)),
        error(std::move(o.error)),
        lock(std::exchange(o.lock, {})),
        lock_dev(o.lock_dev),
        lock_ino(o.lock_ino),
        fd(std::exchange(o.fd, -1)) {}
  Folder& operator=(Folder&&) = delete;
  ~Folder() { Release(); }

  // The path the program is given. For a temporary folder, a path through
  // this process's open descriptor: once the folder is removed (or this
  // process has ended) nothing can create it again there, so a worker the
  // program left running cannot recreate a removed /tmp/hloscope-run-*
  // folder by dumping into it (XLA creates its dump folder, parents and
  // all). The plain path where /proc does not lead back to the folder.
  fs::path ForProgram() const {
    if (fd < 0) return path;
    fs::path via = fmt::format("/proc/{}/fd/{}", getpid(), fd);
    struct stat a {
    }, b{};
    if (stat(via.c_str(), &a) == 0 && stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
      return via;
    return path;
  }
  // The end of the run: a temporary folder removed, a kept one released.
  // The descriptor is closed first: from then on no late writer reaches
  // the folder through /proc while it is being removed.
  void Release() {
    std::error_code ec;
    if (fd >= 0) close(fd);
    fd = -1;
    if (temporary) fs::remove_all(path, ec);
    temporary = false;
    struct stat st {};
    if (!lock.empty() && lstat(lock.c_str(), &st) == 0 && st.st_dev == lock_dev && st.st_ino == lock_ino)
      fs::remove(lock, ec);
    lock.clear();
  }
};

constexpr std::string_view kRunLock = ".hloscope-run.lock";

Folder Refused(std::string why) {
  Folder refused;
  refused.error = std::move(why);
  return refused;
}

Folder RunDumpFolder(const RunRequest& request) {
  if (!request.keep_dumps.empty()) {
    fs::path dir = fs::absolute(request.keep_dumps);
    // Quoted and escaped in XLA_FLAGS as TMPDIR is: only a line break cannot be carried.
    if (dir.string().find_first_of("\n\r") != std::string::npos)
      return Refused(RunMessage(RunEvent::kKeepDumpsUnquotable, request.keep_dumps));
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
      return Refused(RunMessage(RunEvent::kCannotCreate, request.keep_dumps, ec.message()));
    fs::path lock_path = dir / kRunLock;
    if (fs::exists(fs::symlink_status(lock_path, ec))) {
      // A lock whose run is gone (killed with SIGKILL) is not a claim; one
      // without a pid yet is (its run is writing it).
      pid_t holder = 0;
      std::ifstream(lock_path) >> holder;
      if (holder <= 0 || kill(holder, 0) == 0 || errno == EPERM)
        return Refused(RunMessage(RunEvent::kKeepDumpsInUse, request.keep_dumps));
      fs::remove(lock_path, ec);
    }
    if (!fs::is_empty(dir, ec)) return Refused(RunMessage(RunEvent::kKeepDumpsNotEmpty, request.keep_dumps));
    Folder kept;
    kept.path = dir;
    int lock = open(lock_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (lock < 0)  // another run took the folder since it was found empty
      return Refused(RunMessage(RunEvent::kKeepDumpsInUse, request.keep_dumps));
    std::string pid = std::to_string(getpid());
    struct stat st {};
    bool written =
        write(lock, pid.data(), pid.size()) == static_cast<ssize_t>(pid.size()) && fstat(lock, &st) == 0;
    close(lock);
    kept.lock = lock_path;
    kept.lock_dev = st.st_dev;
    kept.lock_ino = st.st_ino;
    if (!written) return Refused(RunMessage(RunEvent::kCannotWrite, lock_path.string()));
    // A run that ended between the emptiness check and the lock left its
    // dumps: the folder is no longer empty.
    size_t entries = 0;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end && entries < 2; it.increment(ec))
      ++entries;
    if (entries != 1) return Refused(RunMessage(RunEvent::kKeepDumpsNotEmpty, request.keep_dumps));
    return kept;
  }
  // TMPDIR as the program will see it: absolute (the program may change
  // directory), and one that does not exist is a message, not an uncaught
  // filesystem error. A space, a quote or a backslash is fine (XLA_FLAGS
  // carries the path quoted and escaped); a line break is not.
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (!ec) base = fs::absolute(base, ec);
  if (ec) return Refused(RunMessage(RunEvent::kNoTemporaryFolder, "", ec.message()));
  if (base.string().find_first_of("\n\r") != std::string::npos)
    return Refused(RunMessage(RunEvent::kNoTemporaryFolder, "", "TMPDIR holds a line break"));
  std::string tmpl = (base / "hloscope-run-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    return Refused(RunMessage(RunEvent::kNoTemporaryFolder, "", std::strerror(errno)));
  Folder temporary;
  temporary.path = tmpl;
  temporary.temporary = true;
  temporary.fd = open(tmpl.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return temporary;
}

// --html FILE: the `hloscope report` page of the compilation that moves
// the most bytes per call (user code first), checked again from its dump.
bool WriteWorstReport(const fs::path& dir, const std::vector<RunRecord>& records, const RunRequest& request,
                      std::ostream& err) {
  const RunRecord* worst = WorstRecord(records);
  ReportRequest report;
  report.output_path = request.html_path;
  if (!worst) {
    err << RunMessage(RunEvent::kNothingForHtml) << "\n";
    return true;
  }
  report.html.title = worst->dump;
  SessionRequest r;
  r.path = (dir / worst->dump).string();
  Result<std::unique_ptr<Session>> s = Session::Open(r);
  if (!s.ok()) {
    err << s.error().Format();
    return false;
  }
  std::ostringstream discard;
  return RunReportCommand(**s, report, discard, err) == kExitOk;
}

}  // namespace

int RunRunCommand(const RunRequest& request, std::ostream& out, std::ostream& err) {
  (void)out;
  if (request.command.empty()) {
    err << RunMessage(RunEvent::kNoProgram) << "\n";
    return kExitError;
  }
  Folder folder = RunDumpFolder(request);
  if (!folder.error.empty()) {
    err << folder.error << "\n";
    return kExitError;
  }
  fs::path boot = folder.path / ".hloscope-bootstrap";
  if (NeedsBootstrap(request) && !WriteBootstrap(boot, err)) return kExitError;
  std::vector<std::string> env = ChildEnvironment(folder.ForProgram(), boot, request);
  std::vector<char*> envp, argv;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = request.command;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  SignalsForChild signals;
  bool own_group = !ForegroundOfATerminal();
  // Signals wait from here until the program's pid is known (the program
  // itself starts with hloscope's own mask).
  sigset_t blocked = SignalsForChild::Blocked(), mask;
  sigprocmask(SIG_BLOCK, &blocked, &mask);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &mask);
  short flags = POSIX_SPAWN_SETSIGMASK;
  if (own_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);
  }
  posix_spawnattr_setflags(&attr, flags);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (rc == 0) signals.Started(pid, own_group);
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  if (rc != 0) {
    err << RunMessage(RunEvent::kCannotRun, request.command[0], std::strerror(rc)) << "\n";
    return kExitError;
  }
  DumpWatcher watcher(folder.path, request, err);
  int status = 0;
  while (true) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    watcher.Scan(DumpWatcher::Moment::kRunning);
    if (request.raise) watcher.AnswerCompiles(boot / "sync");
    // --raise: the program waits for each verdict, so poll often.
    std::this_thread::sleep_for(std::chrono::milliseconds(request.raise ? 2 : 100));
  }
  signals.Ended();
  watcher.Scan(DumpWatcher::Moment::kExited);
  std::vector<RunRecord> records = watcher.records();
  if (request.profile) AttachRunProfile(boot / "profile", folder.path, records, err);

  int code = 0;
  std::string ended;
  if (WIFEXITED(status)) {
    code = WEXITSTATUS(status);
    if (code != 0) ended = RunEndedText(false, code);
  } else if (WIFSIGNALED(status)) {
    code = 128 + WTERMSIG(status);
    ended = RunEndedText(true, WTERMSIG(status));
  }
  RunSummaryOptions summary;
  summary.worst_reports = request.worst_reports;
  std::vector<std::string> shown;
  for (const std::string& a : request.command) shown.push_back(Shown(a));
  summary.program = fmt::format("{}", fmt::join(shown, " "));
  RenderRunSummary(records, summary, err);
  if (!ended.empty()) err << RunMessage(RunEvent::kExited, "", ended) << "\n";
  if (SignalsForChild::Interrupted()) {
    err << RunMessage(RunEvent::kInterrupted) << "\n";
    if (code == 0) code = 128 + SIGINT;
  }
  if (!request.json_path.empty()) {
    // As report -o: support/output_file.h (a device stays a device).
    if (!WriteOutputFile(request.json_path, JsonText(RunJson(records, request.command, code))).empty()) {
      err << RunMessage(RunEvent::kCannotWrite, request.json_path) << "\n";
      if (code == 0) code = kExitError;
    }
  }
  if (!request.html_path.empty() && !WriteWorstReport(folder.path, records, request, err) && code == 0)
    code = kExitError;
  if (!folder.temporary) err << RunMessage(RunEvent::kDumpsKept, folder.path.string()) << "\n";
  folder.Release();
  if (code == 0 && request.fail) {
    int broken = 0;
    for (const RunRecord& r : records) broken += r.problems.empty() ? 0 : 1;
    if (broken > 0) {
      err << RunFailureText(broken, request.gates, request.filter) << "\n";
      code = kExitFindings;
    }
    // A compilation that could not be checked (half-written, not a file)
    // is not one that passed.
    if (watcher.unreadable() > 0) {
      err << RunMessage(RunEvent::kUnchecked, std::to_string(watcher.unreadable())) << "\n";
      code = kExitFindings;
    }
  }
  return code;
}

}  // namespace hloscope
