// Kineto's per-op argument lists ("Input Dims", "Input type", "Input Strides", "Concrete
// Inputs"): JSON arrays kept as text in the model, parsed when an analyzer needs them (the
// roofline's FLOP models). Parsing JSON belongs here, not in analyzers/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope {

// "[[8, 1024], [1024, 4096], []]" -> shapes; a TensorList entry ([[...], [...]]) is an empty
// shape. Empty text is no shapes. False (with *err naming `what`) when it is not such an array.
bool ParseJsonShapeList(std::string_view text, const char* what, std::vector<std::vector<int64_t>>* out,
                        std::string* err);
// ["float", "", null, 1] -> strings (null -> "", anything else -> its JSON text).
bool ParseJsonTextList(std::string_view text, const char* what, std::vector<std::string>* out, std::string* err);

}  // namespace ampscope
