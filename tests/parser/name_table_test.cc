// NameTable: the parser's hash map from names (views of the input) to values.
// Growth reuses the stored hashes, Clear() visits only used slots, and a
// refreshing lookup re-points the key at a newer copy of the same text.
#include "parser/name_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hloscope {
namespace {

TEST(NameTableTest, FindInsertAndGrowth) {
  // Names like XLA's (`add.12`): many share long prefixes.
  std::vector<std::string> names;
  for (int i = 0; i < 50000; ++i) names.push_back("fused_computation." + std::to_string(i));
  NameTable<int> table;
  for (int i = 0; i < 50000; ++i) {
    bool inserted = false;
    *table.FindOrInsert(names[i], &inserted) = i;
    ASSERT_TRUE(inserted);
  }
  EXPECT_EQ(table.size(), 50000u);
  for (int i = 0; i < 50000; ++i) {
    int* v = table.Find(names[i]);
    ASSERT_NE(v, nullptr) << names[i];
    EXPECT_EQ(*v, i);
  }
  EXPECT_EQ(table.Find("fused_computation.50000"), nullptr);
  EXPECT_EQ(table.Find("fused_computation"), nullptr);
  bool inserted = true;
  EXPECT_EQ(*table.FindOrInsert(names[7], &inserted), 7);
  EXPECT_FALSE(inserted);
}

TEST(NameTableTest, KeysOfEveryLengthAreDistinct) {
  // The hash reads 1-3, 4-7 and 8+ byte keys differently; none may collide
  // into a false match.
  std::vector<std::string> keys;
  for (int len = 0; len <= 40; ++len) {
    keys.push_back(std::string(len, 'a'));
    if (len > 0) keys.push_back(std::string(len - 1, 'a') + "b");
    if (len > 1) keys.push_back("b" + std::string(len - 1, 'a'));
  }
  NameTable<size_t> table;
  for (size_t i = 0; i < keys.size(); ++i) table.Insert(keys[i], i);
  for (size_t i = 0; i < keys.size(); ++i) {
    size_t* v = table.Find(keys[i]);
    ASSERT_NE(v, nullptr) << "'" << keys[i] << "'";
    EXPECT_EQ(*v, i) << "'" << keys[i] << "'";
  }
}

TEST(NameTableTest, EmptyKeyWithOrWithoutData) {
  NameTable<int> table;
  table.Insert(std::string_view(), 3);  // null data: empty slots use that marker
  ASSERT_NE(table.Find(""), nullptr);
  EXPECT_EQ(*table.Find(""), 3);
  EXPECT_EQ(*table.Find(std::string_view()), 3);
  EXPECT_EQ(table.size(), 1u);
}

TEST(NameTableTest, ClearAfterGrowthForgetsEverything) {
  NameTable<int> table;
  std::vector<std::string> big;
  for (int i = 0; i < 5000; ++i) big.push_back("param_" + std::to_string(i));
  for (int i = 0; i < 5000; ++i) table.Insert(big[i], i);
  table.Clear();
  EXPECT_EQ(table.size(), 0u);
  for (int i = 0; i < 5000; i += 97) EXPECT_EQ(table.Find(big[i]), nullptr);
  // Reused for a small computation after a big one.
  table.Insert("x", 1);
  table.Insert("param_3", 2);
  EXPECT_EQ(*table.Find("param_3"), 2);
  EXPECT_EQ(table.Find("param_4"), nullptr);
  table.Clear();
  EXPECT_EQ(table.Find("x"), nullptr);
}

TEST(NameTableTest, RefreshRepointsTheKeyAtTheNewerCopy) {
  std::string first = "{op_name=\"jit(f)/add\"}";
  std::string second = first;  // same text, another place
  NameTable<int> table;
  table.Insert(first, 5);
  bool inserted;
  EXPECT_EQ(*table.FindOrInsert(second, &inserted, /*refresh=*/true), 5);
  EXPECT_FALSE(inserted);
  // The table now reads `second`; changing `first` no longer matters.
  first[1] = 'X';
  EXPECT_NE(table.Find(second), nullptr);
  EXPECT_EQ(*table.Find("{op_name=\"jit(f)/add\"}"), 5);
}

}  // namespace
}  // namespace hloscope
