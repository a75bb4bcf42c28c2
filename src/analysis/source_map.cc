#include "hloscope/analysis/source_map.h"

namespace hloscope {

std::string CUnescape(std::string_view s) {
  if (s.find('\\') == std::string_view::npos) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 >= s.size()) {
      out += c;
      continue;
    }
    char n = s[++i];
    switch (n) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'x': {
        int v = 0, k = 0;
        while (k < 2 && i + 1 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1]))) {
          char h = s[++i];
          v = v * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
          ++k;
        }
        out += static_cast<char>(v);
        break;
      }
      default:
        if (n >= '0' && n <= '7') {
          int v = n - '0', k = 1;
          while (k < 3 && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '7') {
            v = v * 8 + (s[++i] - '0');
            ++k;
          }
          out += static_cast<char>(v);
        } else {
          out += n;  // \" \\ \' \?
        }
    }
  }
  return out;
}

namespace {

bool IsLibrary(const std::string& file, const SourceOptions& options) {
  if (!options.skip_library_frames) return false;
  for (const std::string& frag : options.library_path_fragments)
    if (file.find(frag) != std::string::npos) return true;
  return false;
}

}  // namespace

std::optional<SourceLocation> ResolveSource(const HloModule& module, const HloInstruction& instr,
                                            const SourceOptions& options) {
  const OpMetadata* md = instr.metadata();
  if (!md) return std::nullopt;
  SourceLocation loc;
  loc.op_name = CUnescape(md->op_name);
  if (md->stack_frame_id > 0) {
    const StackFrameIndex& index = module.stack_frames();
    std::vector<SourceFrame> chain;
    for (int64_t id = md->stack_frame_id; id > 0 && chain.size() < 512;) {
      std::optional<SourceFrame> f = index.Frame(id);
      if (!f) break;
      chain.push_back(*f);
      id = f->parent_id;
    }
    if (!chain.empty()) {
      size_t pick = 0;
      for (size_t i = 0; i < chain.size(); ++i) {
        if (!IsLibrary(CUnescape(chain[i].file), options)) {
          pick = i;
          break;
        }
      }
      const SourceFrame& f = chain[pick];
      loc.file = CUnescape(f.file);
      loc.line = f.line;
      loc.column = f.column;
      loc.function = CUnescape(f.function);
      for (size_t i = pick + 1; i < chain.size(); ++i)
        loc.stack.push_back({CUnescape(chain[i].file), chain[i].line, CUnescape(chain[i].function)});
      return loc;
    }
  }
  if (!md->source_file.empty()) {
    loc.file = CUnescape(md->source_file);
    loc.line = md->source_line;
    loc.column = md->source_column;
    return loc;
  }
  if (loc.op_name.empty()) return std::nullopt;
  return loc;  // op_name only: still tells the user which JAX op it was
}

std::string_view Basename(std::string_view path) {
  size_t cut = path.find_last_of("/\\");
  return cut == std::string_view::npos ? path : path.substr(cut + 1);
}

}  // namespace hloscope
