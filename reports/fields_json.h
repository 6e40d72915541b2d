// Typed fields (analyzers/results/fields.h) as JSON: the report's `evidence` / `metrics` objects and
// their `evidence_units` / `metrics_units`.
#pragma once

#include <nlohmann/json.hpp>

#include "analyzers/results/fields.h"

namespace ampscope {

// {key: value}: integers as integers, doubles as doubles (non-finite -> null), records as
// objects, lists as arrays. A list of fields is an object, so keys come out sorted.
nlohmann::json FieldsJson(const FieldList& fields);
nlohmann::json ValueJson(const Value& v);
// {key: unit name} for the top-level keys that have a unit.
nlohmann::json FieldUnitsJson(const FieldList& fields);

}  // namespace ampscope
