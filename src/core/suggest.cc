#include "core/suggest.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace flowperf::core {
namespace {

char fold(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string_view without_dashes(std::string_view s) {
  while (!s.empty() && s.front() == '-') s.remove_prefix(1);
  return s;
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: three rows of the usual table.
  std::vector<size_t> two_back(b.size() + 1), back(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) back[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
      row[j] = std::min({back[j] + 1, row[j - 1] + 1, back[j - 1] + cost});
      if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1]))
        row[j] = std::min(row[j], two_back[j - 2] + 1);
    }
    std::swap(two_back, back);
    std::swap(back, row);
  }
  return back[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string_view bare = without_dashes(word);
  // One letter is too little to guess from (and -t and -T are different options).
  if (bare.size() < 2) return "";
  const size_t allowed = bare.size() <= 4 ? 1 : bare.size() <= 8 ? 2 : 3;
  size_t best = std::numeric_limits<size_t>::max(), best_dashes = best;
  std::string found;
  std::vector<const std::string*> extending;
  for (const auto& c : candidates) {
    const std::string_view cb = without_dashes(c);
    if (cb.empty()) continue;
    // Compared without the dashes ("-raet" and "--rate" differ by a swap);
    // of equally near ones, one with as many dashes as the word wins.
    const size_t d = edit_distance(bare, cb);
    const size_t dashes = word.size() - bare.size() == c.size() - cb.size() ? 0 : 1;
    if (d <= allowed && (d < best || (d == best && dashes < best_dashes))) {
      best = d;
      best_dashes = dashes;
      found = c;
    }
    if (cb.size() > bare.size() && bare.size() >= 3) {
      bool prefix = true;
      for (size_t i = 0; i < bare.size() && prefix; ++i) prefix = fold(bare[i]) == fold(cb[i]);
      if (prefix) extending.push_back(&c);
    }
  }
  if (!found.empty()) return found;
  if (extending.size() == 1) return *extending.front();
  return "";
}

}  // namespace flowperf::core
