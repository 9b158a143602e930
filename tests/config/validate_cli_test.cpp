// Runs the real `tern validate` process: exit codes and what it prints on stderr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using ::testing::HasSubstr;

struct Run {
  int exit_code = -1;
  std::string output;  // stderr (and stdout), merged
};

// Runs `tern <args>` through the shell with stderr merged into the captured output.
Run tern(const std::string& args, const std::string& env = "") {
  std::string cmd = env + (env.empty() ? "" : " ") + "\"" TERN_BIN_DIR "/tern\" " + args + " 2>&1";
  Run run;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return run;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) run.output.append(buf, n);
  int status = ::pclose(p);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

const std::string kData = TERN_SOURCE_DIR "/tests/config/data/";

TEST(ValidateCli, ValidConfig) {
  auto r = tern("validate -c " + kData + "valid.yaml");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, kData + "valid.yaml: configuration is valid (0 warnings)\n");
}

TEST(ValidateCli, WarningsKeepExitCodeZero) {
  auto r = tern("validate -c " + kData + "warnings.yaml");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output,
            kData +
                "warnings.yaml:8:3: warning: exporter \"debug/unused\" is defined but not used in any "
                "pipeline\n" +
                kData + "warnings.yaml: configuration is valid (1 warning)\n");
}

TEST(ValidateCli, StrictFailsOnWarnings) {
  auto r = tern("validate --strict -c " + kData + "warnings.yaml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(
      r.output,
      HasSubstr(kData + "warnings.yaml: configuration is valid (1 warning); failing because of --strict\n"));
}

TEST(ValidateCli, ErrorsExitOne) {
  // Without $ELASTICSEARCH_URL, which would stand in for the missing endpoint.
  auto r = tern("validate --config " + kData + "invalid.yaml", "env -u ELASTICSEARCH_URL");
  EXPECT_EQ(r.exit_code, 1);
  const std::string f = kData + "invalid.yaml";
  EXPECT_EQ(
      r.output,
      f +
          ":3:3: error: exporters.elasticsearch: endpoint, endpoints or cloudid must be set (or "
          "$ELASTICSEARCH_URL)\n" +
          f +
          ":4:5: error: unknown key \"endpont\" in exporters.elasticsearch (did you mean \"endpoint\"?)\n" +
          f +
          ":9:43: error: pipeline \"logs\" references exporter \"elastic\" which is not defined in "
          "exporters\n" +
          f + ":3:3: warning: exporter \"elasticsearch\" is defined but not used in any pipeline\n" + f +
          ": 3 errors, 1 warning\n");
}

TEST(ValidateCli, YamlSyntaxError) {
  auto r = tern("validate -c " + kData + "syntax.yaml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, kData + "syntax.yaml:3:1: error: YAML syntax error: end of map flow not found\n" +
                          kData + "syntax.yaml: 1 error, 0 warnings\n");
}

TEST(ValidateCli, EnvironmentIsSubstituted) {
  auto unset = tern("validate -c " + kData + "env.yaml", "env -u TERN_TEST_ES_URL");
  EXPECT_EQ(unset.exit_code, 1);
  EXPECT_THAT(unset.output,
              HasSubstr("env.yaml:8:15: error: exporters.elasticsearch.endpoint: environment variable "
                        "\"TERN_TEST_ES_URL\" is not set (write ${TERN_TEST_ES_URL:-default} to give a "
                        "default)\n"));
  auto set = tern("validate -c " + kData + "env.yaml", "TERN_TEST_ES_URL=http://127.0.0.1:9200");
  EXPECT_EQ(set.exit_code, 0) << set.output;
  EXPECT_EQ(set.output, kData + "env.yaml: configuration is valid (0 warnings)\n");
  auto bad = tern("validate -c " + kData + "env.yaml", "TERN_TEST_ES_URL=127.0.0.1:9200");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.output,
              HasSubstr("env.yaml:8:15: error: exporters.elasticsearch.endpoint: \"127.0.0.1:9200\" must "
                        "start with http:// or https://\n"));
}

TEST(ValidateCli, MissingFile) {
  auto r = tern("validate -c " + kData + "nope.yaml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, kData + "nope.yaml: error: cannot open the config file: No such file or directory\n" +
                          kData + "nope.yaml: 1 error, 0 warnings\n");
}

TEST(ValidateCli, DirectoryInsteadOfFile) {
  auto r = tern("validate -c " + kData);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, kData + ": error: cannot read the config file: it is a directory\n" + kData +
                          ": 1 error, 0 warnings\n");
}

// CLI11 said "A subcommand is required" for a misspelt one.
TEST(ValidateCli, UnknownCommandIsNamed) {
  auto r = tern("valdate -c x.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output,
              HasSubstr("tern: unknown command \"valdate\" (commands: components, convert, demo, gen, run, sink, "
                        "validate, version; see tern --help)"));
}

TEST(ValidateCli, Usage) {
  auto missing = tern("validate");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_EQ(missing.exit_code, 2);  // a usage error, not a config error (1)
  EXPECT_THAT(missing.output, HasSubstr("--config is required"));
  auto help = tern("validate --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.output, HasSubstr("-c,--config"));
  EXPECT_THAT(help.output, HasSubstr("--strict"));
  EXPECT_THAT(help.output, HasSubstr("FILE:LINE:COLUMN: error: MESSAGE"));
  EXPECT_THAT(help.output, HasSubstr("Exit status: 0 when there are no errors"));
}

TEST(ValidateCli, EveryExampleIsValid) {
  for (const char* name : {"demo.yaml", "otlp-to-elasticsearch.yaml", "file-to-elasticsearch.yaml"}) {
    auto r = tern(std::string("validate -c ") + TERN_SOURCE_DIR "/examples/" + name);
    EXPECT_EQ(r.exit_code, 0) << name << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("configuration is valid (0 warnings)")) << name;
  }
}

}  // namespace
