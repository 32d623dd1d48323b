// Where the console's words go and how wide they may be. On a terminal: prose wrapped and tables
// clipped to its width, and one status line (stderr) redrawn in place and cleared before anything
// else is written; through a pipe or into a file: lines as they are, and no control characters.
#pragma once
#include <cstdio>
#include <string>

namespace ladder {

// Clears the status line of the Console that drew one last, where one is drawn: for the errors
// that end the program from wherever they are found (usage_error).
void clear_status_line();

// `text` with each line longer than `width` broken at spaces, the continuation indented by the
// line's own indent plus two (a hanging indent); width 0 leaves it as it is.
std::string wrap_lines(const std::string& text, int width);
// Clears the status line of the Console that drew one last, where one is drawn: for the errors
// that end the program from wherever they are found (usage_error).
void clear_status_line();

// `text` with each line longer than `width` cut to `width` columns, the last one '~' (a table's
// right-hand columns are in the results file); width 0 leaves it as it is.
std::string clip_lines(const std::string& text, int width);
// Columns a line takes on a terminal: UTF-8 continuation bytes take none.
int display_width(const std::string& line);

class Console {
 public:
  // `quiet`: --quiet (only errors and the closing summary). Each stream's width is its
  // terminal's (none for a pipe or a file); the status line is drawn where stderr is a terminal.
  explicit Console(bool quiet);
  // For tests: one width for both streams, and whether a status line is drawn.
  Console(bool quiet, int width, bool status_line)
      : quiet_(quiet), out_width_(width), err_width_(width), status_line_(status_line) {}

  ~Console() { status(""); }
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  bool quiet() const { return quiet_; }
  int width(std::FILE* to) const { return to == stderr ? err_width_ : out_width_; }  // 0: no limit
  bool status_line() const { return status_line_; }

  // Prose (notes, messages, section titles): wrapped. `say` is suppressed by --quiet; errors and
  // the closing summary use `always`.
  void say(std::FILE* to, const std::string& text);
  void always(std::FILE* to, const std::string& text);
  // A table or a fixed-width row: clipped, never wrapped (but for its "note: " lines, which are
  // prose).
  void table(std::FILE* to, const std::string& text, bool closing_summary = false);
  // Replaces the status line (a terminal only); an empty text clears it.
  void status(const std::string& text);

 private:
  void write(std::FILE* to, const std::string& text);
  bool quiet_ = false;
  int out_width_ = 0, err_width_ = 0;
  bool status_line_ = false;
  std::string status_;  // what the status line shows now ("" when cleared)
};

}  // namespace ladder
