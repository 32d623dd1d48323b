#include "console.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <sstream>
#include <vector>

namespace ladder {

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Joined with '\n', keeping whether the text ended with one.
std::string joined(const std::vector<std::string>& lines, const std::string& original) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += lines[i] + (i + 1 < lines.size() ? "\n" : "");
  if (!original.empty() && original.back() == '\n') out += '\n';
  return out;
}

// The byte offset at which `line` has taken `columns` display columns.
std::size_t offset_at_column(const std::string& line, int columns) {
  int seen = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (seen == columns) return i;
    ++seen;
  }
  return line.size();
}

int terminal_width(int fd) {
  if (!isatty(fd)) return 0;
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;  // a terminal that does not say: the width every terminal has
}

// The Console whose status line is on the terminal now (one a process).
Console* g_drawn = nullptr;

}  // namespace

void clear_status_line() {
  if (g_drawn) g_drawn->status("");
}

int display_width(const std::string& line) {
  int columns = 0;
  for (const char c : line) columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return columns;
}

std::string wrap_lines(const std::string& text, int width) {
  if (width <= 0) return text;
  std::vector<std::string> out;
  for (std::string line : lines_of(text)) {
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    const std::string hanging(std::min<std::size_t>(indent + 2, width / 2), ' ');
    bool first = true;
    while (display_width(line) > width) {
      const std::size_t limit = offset_at_column(line, width);
      std::size_t cut = line.rfind(' ', limit);
      // No space past the indent to break at: cut the word.
      if (cut == std::string::npos || cut <= (first ? indent : hanging.size())) cut = limit;
      out.push_back(line.substr(0, cut));
      const std::size_t rest = line.find_first_not_of(' ', cut);
      line = rest == std::string::npos ? std::string() : std::string(hanging).append(line, rest);
      first = false;
    }
    if (first || line.find_first_not_of(' ') != std::string::npos) out.push_back(line);
  }
  return joined(out, text);
}

std::string clip_lines(const std::string& text, int width) {
  if (width <= 0) return text;
  std::vector<std::string> out;
  for (const std::string& line : lines_of(text))
    out.push_back(display_width(line) <= width ? line : line.substr(0, offset_at_column(line, width - 1)) + "~");
  return joined(out, text);
}

Console::Console(bool quiet)
    : quiet_(quiet),
      out_width_(terminal_width(STDOUT_FILENO)),
      err_width_(terminal_width(STDERR_FILENO)),
      status_line_(isatty(STDERR_FILENO) != 0) {}

void Console::write(std::FILE* to, const std::string& text) {
  const std::string shown = status_;
  if (!shown.empty()) status("");
  std::fputs(text.c_str(), to);
  std::fflush(to);
  if (!shown.empty()) status(shown);
}

void Console::say(std::FILE* to, const std::string& text) {
  if (!quiet_) always(to, text);
}

void Console::always(std::FILE* to, const std::string& text) { write(to, wrap_lines(text, width(to))); }

void Console::table(std::FILE* to, const std::string& text, bool closing_summary) {
  if (quiet_ && !closing_summary) return;
  // A note under a table is prose: wrapped, not clipped.
  std::string shown;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    shown += line.rfind("note: ", 0) == 0 ? wrap_lines(line + "\n", width(to)) : clip_lines(line + "\n", width(to));
  if (!text.empty() && text.back() != '\n' && !shown.empty()) shown.pop_back();
  write(to, shown);
}

void Console::status(const std::string& text) {
  if (!status_line_ || quiet_) return;
  // Carriage return and erase-line: the line is redrawn in place, never scrolled.
  const std::string line = text.empty() ? std::string() : clip_lines(text, std::max(1, err_width_ - 1));
  std::fputs(("\r\033[K" + line).c_str(), stderr);
  std::fflush(stderr);
  status_ = text;
  g_drawn = text.empty() ? nullptr : this;
}

}  // namespace ladder
