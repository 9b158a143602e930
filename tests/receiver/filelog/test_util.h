#pragma once
// Shared by the file receiver tests: a Consumer that records lines and can refuse batches
// or hold their delivery tokens to settle (or fail) them later, a temp directory, and a
// poll-until helper (tests wait for conditions, never for a time).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "component/consumer.h"
#include "pdata/logs.h"

namespace tern::receiver::filelog::test {

namespace fs = std::filesystem;

struct Line {
  std::string file;                                           // log.file.name
  std::string body;                                           // the string (or bytes) body
  std::vector<std::pair<std::string, std::string>> attrs;     // string attributes
  std::vector<std::pair<std::string, std::string>> resource;  // string resource attributes
  std::uint64_t time = 0;                                     // time_unix_nano
};

class FakeConsumer : public component::Consumer {
 public:
  component::ConsumeResult consume_logs(std::shared_ptr<pdata::LogsData> b) override {
    std::lock_guard lock(mu_);
    ++calls_;
    if (refuse_ > 0) {
      --refuse_;
      if (b->delivery) b->delivery->fail();  // as a full queue does
      return component::ConsumeResult::retry_later("full", std::chrono::milliseconds(5));
    }
    if (invalid_ > 0) {
      --invalid_;
      return {component::ConsumeCode::kInvalid, "bad", {}, 0};
    }
    for (const auto& rl : b->resource_logs)
      for (const auto& sl : rl.scope_logs)
        for (const auto& r : sl.log_records) {
          Line l;
          for (const auto& kv : rl.resource.attributes)
            l.resource.emplace_back(std::string(kv.key), std::string(kv.value.string_value));
          l.body = std::string(r.body.string_value);
          l.time = r.time_unix_nano;
          for (const auto& kv : r.attributes) {
            if (kv.key == "log.file.name") l.file = std::string(kv.value.string_value);
            if (kv.value.kind == pdata::ValueKind::String)
              l.attrs.emplace_back(std::string(kv.key), std::string(kv.value.string_value));
          }
          lines_.push_back(std::move(l));
        }
    // The batch itself is not kept: its token settles when the receiver lets go of it,
    // unless held here.
    if (hold_ && b->delivery) held_.push_back(b->delivery);
    return component::ConsumeResult::ok();
  }
  component::ConsumeResult consume_traces(std::shared_ptr<pdata::TracesData>) override {
    return {component::ConsumeCode::kInvalid, "logs only", {}, 0};
  }
  component::ConsumeResult consume_metrics(std::shared_ptr<pdata::MetricsData>) override {
    return {component::ConsumeCode::kInvalid, "logs only", {}, 0};
  }

  void refuse(int n) {
    std::lock_guard lock(mu_);
    refuse_ = n;
  }
  void invalid(int n) {
    std::lock_guard lock(mu_);
    invalid_ = n;
  }
  void hold_tokens(bool on) {
    std::lock_guard lock(mu_);
    hold_ = on;
  }
  std::size_t held() {
    std::lock_guard lock(mu_);
    return held_.size();
  }
  // Takes the i-th held token (in arrival order) out, to settle it: release = delivered,
  // fail() then release = not delivered.
  pdata::DeliveryTokenPtr take(std::size_t i) {
    std::lock_guard lock(mu_);
    return std::move(held_.at(i));
  }
  // Fails every held token still there (a consumer going away without delivering).
  void fail_held() {
    std::vector<pdata::DeliveryTokenPtr> tokens;
    {
      std::lock_guard lock(mu_);
      tokens.swap(held_);
    }
    for (auto& t : tokens)
      if (t) t->fail();
  }
  std::vector<Line> lines() {
    std::lock_guard lock(mu_);
    return lines_;
  }
  std::vector<std::string> bodies(const std::string& file = "") {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const auto& l : lines_)
      if (file.empty() || l.file == file) out.push_back(l.body);
    return out;
  }
  std::size_t count() {
    std::lock_guard lock(mu_);
    return lines_.size();
  }
  std::size_t calls() {
    std::lock_guard lock(mu_);
    return calls_;
  }

 private:
  std::mutex mu_;
  int refuse_ = 0, invalid_ = 0;
  bool hold_ = false;
  std::size_t calls_ = 0;
  std::vector<Line> lines_;
  std::vector<pdata::DeliveryTokenPtr> held_;
};

// Polls `pred` every few milliseconds until it holds or a generous deadline passes.
inline bool eventually(const std::function<bool()>& pred,
                       std::chrono::seconds deadline = std::chrono::seconds(30)) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() / ("tern-filelog-" + std::to_string(::getpid()) + "-" +
                                         info->test_suite_name() + "-" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

inline void append(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::app);
  f << text;
}

}  // namespace tern::receiver::filelog::test
