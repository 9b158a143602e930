#include "ottl/statement.h"

#include "ottl/evaluator.h"
#include "ottl/parser.h"

namespace tern::ottl {

std::optional<Statement> Statement::parse(std::string_view text, Context context, std::string& error) {
  error.clear();
  auto impl = std::make_unique<Impl>();
  if (!parse_statement(text, context, *impl, error)) {
    if (error.empty()) error = "not a statement";
    return std::nullopt;
  }
  Statement st;
  st.text_ = std::string(text);
  st.impl_ = std::move(impl);
  return st;
}

Statement::Statement(Statement&&) noexcept = default;
Statement& Statement::operator=(Statement&&) noexcept = default;
Statement::~Statement() = default;

void Statement::execute(const MutableItem& item, const pdata::Arena& arena) const {
  run(*impl_, item, arena);
}

}  // namespace tern::ottl
