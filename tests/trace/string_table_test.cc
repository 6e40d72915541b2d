// StringTable: dense ids, stable views, copies and moves, and the text budget that caps new
// long names once a trace has kept "enough" distinct text (issue 16: all-unique 1 KB names).
// Expected values are what the header promises, checked on hand-made strings.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trace/formats/kineto/kineto_reader.h"
#include "trace/string_table.h"

namespace ampscope {
namespace string_table_test {
namespace {

using ::testing::HasSubstr;

TEST(StringTable, IdsAreDenseAndViewsStayValid) {
  StringTable t;
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.Intern(""), kNoString);
  const StringId a = t.Intern("aten::mm");
  EXPECT_EQ(a, 1u);
  EXPECT_EQ(t.Intern("aten::mm"), a);
  const std::string_view kept = t.get(a);
  std::vector<std::string> many;
  for (int i = 0; i < 200000; ++i) many.push_back("name_" + std::to_string(i) + std::string(i % 50, 'x'));
  for (size_t i = 0; i < many.size(); ++i) ASSERT_EQ(t.Intern(many[i]), static_cast<StringId>(i + 2));
  // A string bigger than a quarter of an arena block gets a block of its own.
  const std::string big(600000, 'b');
  const StringId big_id = t.Intern(big);
  EXPECT_EQ(t.Intern("after the big one"), big_id + 1);
  EXPECT_EQ(kept.data(), t.get(a).data());  // never moved
  EXPECT_EQ(t.get(a), "aten::mm");
  for (size_t i = 0; i < many.size(); i += 997) {
    StringId id;
    ASSERT_TRUE(t.Find(many[i], &id));
    EXPECT_EQ(t.get(id), many[i]);
  }
  EXPECT_EQ(t.get(big_id), big);
  EXPECT_EQ(t.get(999999999), "");  // unknown ids from files read as ""
  StringId missing;
  EXPECT_FALSE(t.Find("absent", &missing));
}

TEST(StringTable, CopiesAndMovesKeepIds) {
  StringTable t;
  for (int i = 0; i < 1000; ++i) t.Intern("s" + std::to_string(i));
  StringTable copy = t;
  EXPECT_EQ(copy.size(), t.size());
  for (StringId id = 0; id < t.size(); ++id) EXPECT_EQ(copy.get(id), t.get(id));
  EXPECT_NE(copy.get(5).data(), t.get(5).data());  // its own arena
  StringTable moved = std::move(t);
  EXPECT_EQ(moved.get(5), "s4");
  EXPECT_EQ(t.size(), 1u);  // NOLINT(bugprone-use-after-move): left empty, still usable
  EXPECT_EQ(t.Intern("fresh"), 1u);
  EXPECT_EQ(moved.get(5), "s4");
}

TEST(StringTable, LongNamesAreCappedOnceTheBudgetIsSpent) {
  StringTable t;
  t.set_long_text_budget(1000);
  const std::string first(400, 'a'), second(700, 'b');
  const StringId a = t.Intern(first);   // 0 bytes kept so far: stored in full
  const StringId b = t.Intern(second);  // 400 < 1000: in full
  EXPECT_EQ(t.get(a), first);
  EXPECT_EQ(t.get(b), second);
  EXPECT_EQ(t.capped_count(), 0u);
  // 1100 bytes kept: new long names are capped to kCappedBytes, distinct ones stay distinct.
  const std::string c1 = std::string(300, 'c') + "1", c2 = std::string(300, 'c') + "2";
  const StringId id1 = t.Intern(c1), id2 = t.Intern(c2);
  EXPECT_NE(id1, id2);
  EXPECT_EQ(t.Intern(c1), id1);
  EXPECT_EQ(t.capped_count(), 2u);
  ASSERT_EQ(t.get(id1).size(), StringTable::kCappedBytes);
  EXPECT_EQ(t.get(id1).substr(0, 108), std::string(108, 'c'));
  EXPECT_EQ(t.get(id1).substr(108, 4), "...#");
  EXPECT_NE(t.get(id1), t.get(id2));
  // Names kept before stay whole; short names are never capped.
  EXPECT_EQ(t.Intern(first), a);
  EXPECT_EQ(t.get(t.Intern(std::string(128, 'd'))).size(), 128u);
  EXPECT_EQ(t.capped_count(), 2u);
}

TEST(StringTable, CappingDoesNotCutAUtf8Sequence) {
  StringTable t;
  t.set_long_text_budget(0);
  // 107 ASCII bytes, then 3-byte characters: the cut at 108 falls inside the first one.
  const std::string name = std::string(107, 'k') + "\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC" + std::string(100, 'z');
  const std::string_view capped = t.get(t.Intern(name));
  EXPECT_EQ(capped.substr(0, 107), std::string(107, 'k'));
  EXPECT_EQ(capped.substr(107, 4), "...#");  // the partial euro sign was left out
  EXPECT_EQ(capped.size(), 107u + 4 + 16);
}

TEST(StringTable, KinetoReaderCountsCappedNames) {
  auto op = [](const std::string& name, int ts) {
    return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" +
           std::to_string(ts) + R"(, "dur": 1})";
  };
  const std::string a(300, 'a'), b(300, 'b');
  const std::string second = op(b, 2);
  const std::string json = "{\"traceEvents\": [" + op(a, 1) + ", " + second + ", " + op(a, 3) + ", " + op("x", 4) +
                           ", " + op(b, 5) + "]}";
  KinetoReadOptions options;
  options.name_text_budget_bytes = 1;  // anything after the first name is over budget
  StatusOr<Trace> r = ReadKinetoTraceFromString(json, "t.json", options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->cpu_ops.size(), 5u);
  EXPECT_EQ(r->str(r->cpu_ops[0].name), a);
  EXPECT_EQ(r->str(r->cpu_ops[1].name).size(), StringTable::kCappedBytes);
  EXPECT_EQ(r->cpu_ops[4].name, r->cpu_ops[1].name);
  EXPECT_EQ(r->str(r->cpu_ops[3].name), "x");
  // One distinct name was capped; the diagnostic points at its first event.
  EXPECT_EQ(r->diagnostics.Count(DiagCode::kTextCapped), 1u);
  const DiagnosticEntry& e = r->diagnostics.entries().at("text_capped");
  EXPECT_EQ(e.first_offset, static_cast<int64_t>(json.find(second)));
  EXPECT_THAT(e.first_message, HasSubstr("a name of 300 bytes"));
  // The default budget (16 MiB at least) keeps these in full.
  r = ReadKinetoTraceFromString(json, "t.json");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->str(r->cpu_ops[1].name), b);
  EXPECT_EQ(r->diagnostics.Count(DiagCode::kTextCapped), 0u);
}

}  // namespace
}  // namespace string_table_test
}  // namespace ampscope
