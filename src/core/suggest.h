// "Did you mean": the known word nearest to a mistyped one, for every
// front end's unknown-option and unknown-test errors (each says it in its
// own tool's style).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace flowperf::core {

// The edits between a and b, ignoring case: a letter inserted, deleted or
// replaced, or two neighbours swapped, each counts one.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` when it is near enough to be what was
// meant: at most one edit for a word of up to 4 letters, two up to 8, three
// beyond; or one that starts with `word` (an abbreviation) when no other
// does. Leading dashes are left out of the count, so "-raet" finds
// "--rate"; a word of one letter finds nothing (-t and -T differ). Empty
// when none is near; of equally near ones, the first with as many leading
// dashes as the word, else the first.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace flowperf::core
