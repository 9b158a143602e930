#pragma once
// Attribute and body values: `Value` is a cheap non-owning view used on the emit
// path; `OwnedValue` is its owning twin for data that outlives the caller's call.
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>

namespace tern::sdk::logs {

enum class ValueKind : std::uint8_t { kEmpty, kString, kBool, kInt, kDouble };

// A string is held as a view: it must stay valid until Logger::Emit returns (the
// processors copy what they keep). Temporaries of std::string are rejected for that reason.
class Value {
 public:
  constexpr Value() = default;
  constexpr Value(std::string_view s) : kind_(ValueKind::kString), string_(s) {}
  constexpr Value(const char* s) : Value(std::string_view(s)) {}
  Value(const std::string& s) : Value(std::string_view(s)) {}
  Value(std::string&&) = delete;
  constexpr Value(bool b) : kind_(ValueKind::kBool), bool_(b) {}
  template <std::integral T>
  requires(!std::same_as<T, bool>) constexpr Value(T i)
      : kind_(ValueKind::kInt), int_(static_cast<std::int64_t>(i)) {}
  template <std::floating_point T>
  constexpr Value(T d) : kind_(ValueKind::kDouble), double_(static_cast<double>(d)) {}

  constexpr ValueKind kind() const { return kind_; }
  constexpr bool empty() const { return kind_ == ValueKind::kEmpty; }
  constexpr std::string_view as_string() const { return string_; }
  constexpr bool as_bool() const { return bool_; }
  constexpr std::int64_t as_int() const { return int_; }
  constexpr double as_double() const { return double_; }

 private:
  ValueKind kind_ = ValueKind::kEmpty;
  union {
    bool bool_;
    std::int64_t int_;
    double double_ = 0;
  };
  std::string_view string_;
};

struct Attribute {
  std::string_view key;
  Value value;
};

// Owning value. Assign() reuses the string's capacity, so a recycled OwnedValue
// (a batch-queue slot) stops allocating once warmed up.
class OwnedValue {
 public:
  OwnedValue() = default;
  explicit OwnedValue(Value v) { Assign(v); }

  void Assign(Value v) {
    kind_ = v.kind();
    switch (kind_) {
      case ValueKind::kString:
        string_.assign(v.as_string());
        break;
      case ValueKind::kBool:
        bool_ = v.as_bool();
        break;
      case ValueKind::kInt:
        int_ = v.as_int();
        break;
      case ValueKind::kDouble:
        double_ = v.as_double();
        break;
      case ValueKind::kEmpty:
        break;
    }
  }
  Value view() const {
    switch (kind_) {
      case ValueKind::kString:
        return Value(std::string_view(string_));
      case ValueKind::kBool:
        return Value(bool_);
      case ValueKind::kInt:
        return Value(int_);
      case ValueKind::kDouble:
        return Value(double_);
      case ValueKind::kEmpty:
        break;
    }
    return {};
  }
  ValueKind kind() const { return kind_; }

 private:
  ValueKind kind_ = ValueKind::kEmpty;
  union {
    bool bool_;
    std::int64_t int_;
    double double_ = 0;
  };
  std::string string_;
};

struct OwnedAttribute {
  OwnedAttribute() = default;
  explicit OwnedAttribute(const Attribute& a) : key(a.key), value(a.value) {}
  Attribute view() const { return {key, value.view()}; }
  std::string key;
  OwnedValue value;
};

}  // namespace tern::sdk::logs
