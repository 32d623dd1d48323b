#include <gtest/gtest.h>

#include "ladder_table.hpp"

namespace ladder {
namespace {

TEST(LadderTable, ShowsSpeedupsOverPreviousAndBoxedAndFailures) {
  std::vector<LadderRow> rows = {
      {"boxed", "f32", 128, 1, 0.1, 4e7, 0.0002, ""},
      {"naive", "f32", 1024, 1, 2.0, 1e9, 0.004, ""},
      {"broken", "f32", 1024, 0, 0, 0, 0, "verification failed: output is all zero"},
      {"autovec", "f32", 1024, 1, 0.05, 4e10, 0.17, ""},
  };
  std::string table = format_ladder(rows);
  EXPECT_NE(table.find("25.00x"), std::string::npos) << table;  // naive over boxed
  EXPECT_NE(table.find("40.00x"), std::string::npos) << table;  // autovec over naive
  EXPECT_NE(table.find("1000x"), std::string::npos) << table;   // autovec over boxed
  EXPECT_NE(table.find("FAILED: verification failed: output is all zero"), std::string::npos) << table;
  EXPECT_NE(table.find("17.0%"), std::string::npos) << table;
}

}  // namespace
}  // namespace ladder
