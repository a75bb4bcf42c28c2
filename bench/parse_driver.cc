// Parses one file N times in one process and prints, per parse, wall time,
// user and system CPU time and minor page faults: what bench/ab_parse.py
// needs to compare two versions of the parser on a noisy machine.
//
//   parse_driver FILE [N]
//
// Uses only the public parser API, so ab_parse.py can compile this file
// against an older revision's library too.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "hloscope/parser/parser.h"

namespace {
double Ms(const timeval& a, const timeval& b) {
  return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_usec - a.tv_usec) / 1e3;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [N]\n", argv[0]);
    return 2;
  }
  auto text = hloscope::ReadFileOrStdin(argv[1]);
  if (!text.ok()) {
    std::fprintf(stderr, "%s\n", text.error().Format().c_str());
    return 2;
  }
  int n = argc > 2 ? std::atoi(argv[2]) : 3;
  for (int i = 0; i < n; ++i) {
    rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    auto t0 = std::chrono::steady_clock::now();
    auto group = hloscope::ParseHloText(text.value());
    auto t1 = std::chrono::steady_clock::now();
    getrusage(RUSAGE_SELF, &r1);
    if (!group.ok()) {
      std::fprintf(stderr, "%s\n", group.error().Format().c_str());
      return 2;
    }
    std::printf("parse %d wall_ms %.1f user_ms %.1f sys_ms %.1f minflt %ld\n", i,
                std::chrono::duration<double, std::milli>(t1 - t0).count(), Ms(r0.ru_utime, r1.ru_utime),
                Ms(r0.ru_stime, r1.ru_stime), r1.ru_minflt - r0.ru_minflt);
    std::fflush(stdout);
  }
  return 0;
}
