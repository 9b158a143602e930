#include "processor/transform/config.h"

#include <fmt/format.h>

#include "ottl/condition.h"
#include "ottl/statement.h"

#include "config/reader.h"

namespace tern::processor {

using config::DecodeContext;
using config::MapReader;

// `transform`: groups of OTTL statements per signal. A group is a mapping (context,
// conditions, statements) or, the Collector's flat form, one statement as a string, run in
// the signal's item context (log, span, datapoint).
void decode(DecodeContext& ctx, MapReader& r, const YAML::Mark& at, TransformProcessorConfig& c) {
  using E = TransformProcessorConfig::ErrorMode;
  r.choice("error_mode", c.error_mode,
           {{"propagate", E::kPropagate}, {"ignore", E::kIgnore}, {"silent", E::kSilent}});
  struct Signal {
    const char* key;
    std::vector<TransformProcessorConfig::Group>* groups;
    std::vector<std::pair<std::string, ottl::Context>> contexts;  // the first is the flat form's
  };
  const Signal signals[] = {
      {"log_statements",
       &c.log_statements,
       {{"log", ottl::Context::kLog},
        {"resource", ottl::Context::kResource},
        {"scope", ottl::Context::kScope}}},
      {"trace_statements",
       &c.trace_statements,
       {{"span", ottl::Context::kSpan},
        {"spanevent", ottl::Context::kSpanEvent},
        {"resource", ottl::Context::kResource},
        {"scope", ottl::Context::kScope}}},
      {"metric_statements",
       &c.metric_statements,
       {{"datapoint", ottl::Context::kDataPoint},
        {"metric", ottl::Context::kMetric},
        {"resource", ottl::Context::kResource},
        {"scope", ottl::Context::kScope}}},
  };
  bool any = false;
  for (const auto& sig : signals) {
    const YAML::Node list = r.get(sig.key);
    if (!list.IsDefined() || list.IsNull()) continue;
    if (!list.IsSequence()) {
      ctx.error(list.Mark(), fmt::format("{}: expected a list", r.sub_path(sig.key)));
      continue;
    }
    std::size_t i = 0;
    for (const auto& item : list) {
      const std::string path = fmt::format("{}[{}]", r.sub_path(sig.key), i++);
      TransformProcessorConfig::Group g;
      ottl::Context context = sig.contexts.front().second;
      std::vector<std::pair<YAML::Mark, std::string>> statements, conditions;
      if (item.IsScalar()) {
        g.context = sig.contexts.front().first;
        statements.emplace_back(item.Mark(), item.Scalar());
      } else {
        MapReader m(ctx, item, path);
        std::vector<std::string> names;
        for (const auto& [name, cx] : sig.contexts) names.push_back(name);
        g.context = sig.contexts.front().first;
        m.one_of("context", g.context, names);
        for (const auto& [name, cx] : sig.contexts)
          if (name == g.context) context = cx;
        for (auto [key, out] : {std::pair{"statements", &statements}, std::pair{"conditions", &conditions}}) {
          const YAML::Node n = m.get(key);
          if (!n.IsDefined() || n.IsNull()) continue;
          if (!n.IsSequence()) {
            ctx.error(n.Mark(), fmt::format("{}: expected a list", m.sub_path(key)));
            continue;
          }
          for (const auto& s : n)
            if (auto text = ctx.scalar(s, m.sub_path(key))) out->emplace_back(s.Mark(), *text);
        }
        if (statements.empty())
          ctx.error(item.Mark(), fmt::format("{}: statements must list what to do", path));
      }
      std::string error;
      for (const auto& [mark, text] : statements) {
        if (!ottl::Statement::parse(text, context, error))
          ctx.error(mark, fmt::format("{}: \"{}\": {}", path, text, error));
        g.statements.push_back(text);
      }
      for (const auto& [mark, text] : conditions) {
        if (!ottl::Condition::parse(text, context, error))
          ctx.error(mark, fmt::format("{}: \"{}\": {}", path, text, error));
        g.conditions.push_back(text);
      }
      any = any || !g.statements.empty();
      sig.groups->push_back(std::move(g));
    }
  }
  if (!any)
    ctx.error(
        at, fmt::format("{}: no statements (log_statements, trace_statements, metric_statements)", r.path()));
}

}  // namespace tern::processor
