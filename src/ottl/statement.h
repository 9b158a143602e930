#pragma once
// OTTL statements, the subset the `transform` processor runs: the editors set, delete_key,
// delete_matching_keys, keep_keys and replace_pattern, each with an optional
// `where <condition>` (ottl/condition.h). Parsed once (the config loader reports errors);
// executed per item, in place. Implemented with the conditions; the editors are in
// ottl/functions.cpp.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ottl/condition.h"
#include "pdata/arena.h"

namespace tern::ottl {

// What a statement changes: the item of its context, in a batch the caller owns.
struct MutableItem {
  pdata::Resource* resource = nullptr;
  pdata::InstrumentationScope* scope = nullptr;
  pdata::LogRecord* log = nullptr;
  pdata::Span* span = nullptr;
  pdata::SpanEvent* event = nullptr;
  pdata::Metric* metric = nullptr;
  pdata::Attributes* point_attributes = nullptr;
  std::uint64_t point_start_time = 0, point_time = 0;

  Item view() const {
    return {resource, scope, log, span, event, metric, point_attributes, point_start_time, point_time};
  }
};

class Statement {
 public:
  static std::optional<Statement> parse(std::string_view text, Context context, std::string& error);

  Statement(Statement&&) noexcept;
  Statement& operator=(Statement&&) noexcept;
  ~Statement();

  // Runs the statement on `item` when its `where` holds; strings it writes are copied into
  // `arena` (the batch's). A value of another type than the target takes (a number into
  // severity_text, nil anywhere) changes nothing, as in OTTL.
  void execute(const MutableItem& item, const pdata::Arena& arena) const;
  const std::string& text() const { return text_; }

  struct Impl;

 private:
  Statement() = default;
  std::string text_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::ottl
