#include <gtest/gtest.h>

#include "config/diagnostics.h"

namespace tern::config {
namespace {

TEST(Diagnostics, FormatAndCounts) {
  Diagnostics d;
  d.add(Severity::kError, "c.yaml", 3, 7, "bad");
  d.add(Severity::kWarning, "c.yaml", 9, 1, "unused");
  d.add(Severity::kError, "c.yaml", 0, 0, "no position");
  EXPECT_EQ(d.items[0].format(), "c.yaml:3:7: error: bad");
  EXPECT_EQ(d.items[1].format(), "c.yaml:9:1: warning: unused");
  EXPECT_EQ(d.items[2].format(), "c.yaml: error: no position");
  EXPECT_EQ(d.error_count(), 2);
  EXPECT_EQ(d.warning_count(), 1);
  EXPECT_TRUE(d.has_errors());
  EXPECT_FALSE(Diagnostics{}.has_errors());
}

}  // namespace
}  // namespace tern::config
