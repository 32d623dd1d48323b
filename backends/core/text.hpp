// Small text helpers the command line and the reports share.
#pragma once
#include <string>
#include <vector>

namespace ladder {

// The pieces of `text` between separators, empty ones included ("a,,b" → a, "", b).
inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::size_t start = 0;
  for (;;) {
    const auto at = text.find(separator, start);
    items.push_back(text.substr(start, at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return items;
}

// The items of [first, last) with `separator` between them ({"a", "b"} → "a|b").
template <class It>
std::string join(It first, It last, char separator) {
  std::string text;
  for (It it = first; it != last; ++it) {
    if (it != first) text += separator;
    text += *it;
  }
  return text;
}

}  // namespace ladder
