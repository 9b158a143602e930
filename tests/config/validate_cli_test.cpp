// Runs the real `tern validate` process: exit codes and what it prints on stderr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
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
  EXPECT_THAT(
      r.output,
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

// `tern validate` refuses what `tern run` would refuse at start, with the same message:
// a TLS file it cannot read, a storage directory it cannot use.
class ValidateEnvironment : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tern-validate-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    FILE* f = std::fopen(path.c_str(), "w");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return path;
  }
  std::string dir_;
};

TEST_F(ValidateEnvironment, UnreadableTlsFileFailsValidateAndRunAlike) {
  const std::string cfg = write("tls.yaml", R"(receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
        tls: {cert_file: /nonexistent/tern/cert.pem, key_file: /nonexistent/tern/key.pem}
exporters:
  debug: {}
service:
  telemetry: {metrics: {level: none}}
  pipelines:
    logs: {receivers: [otlp], exporters: [debug]}
)");
  const std::string expected =
      cfg +
      ":6:26: error: receivers.otlp.protocols.http.tls.cert_file: cannot read /nonexistent/tern/cert.pem: "
      "No such file or directory";
  auto v = tern("validate -c " + cfg);
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_THAT(v.output, HasSubstr(expected));
  EXPECT_THAT(v.output, HasSubstr("tls.key_file: cannot read /nonexistent/tern/key.pem"));
  auto r = tern("run -c " + cfg);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr(expected));
  EXPECT_THAT(r.output, HasSubstr("not starting"));
}

TEST_F(ValidateEnvironment, UnusableStorageDirectoryFailsValidateAndRunAlike) {
  const std::string file = write("not-a-dir", "x");
  const std::string cfg =
      write("storage.yaml", "receivers:\n  filelog:\n    include: [" + dir_ +
                                "/*.log]\n    storage: file_storage\n"
                                "extensions:\n  file_storage: {directory: " +
                                file +
                                "/state}\n"
                                "exporters:\n  otlp:\n    endpoint: 127.0.0.1:4317\n"
                                "    sending_queue: {storage: file_storage}\n"
                                "service:\n  extensions: [file_storage]\n"
                                "  telemetry: {metrics: {level: none}}\n"
                                "  pipelines:\n    logs: {receivers: [filelog], exporters: [otlp]}\n");
  auto v = tern("validate -c " + cfg);
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_THAT(v.output, HasSubstr("receivers.filelog.storage: " + file + " is not a directory"));
  EXPECT_THAT(v.output, HasSubstr("exporters.otlp.sending_queue: " + file + " is not a directory"));
  auto r = tern("run -c " + cfg);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("receivers.filelog.storage: " + file + " is not a directory"));
}

TEST_F(ValidateEnvironment, UsableDirectoryAndReadableFilesValidate) {
  write("cert.pem", "not checked for content here: the TLS library reads it at start");
  const std::string cfg =
      write("ok.yaml", "receivers:\n  filelog:\n    include: [" + dir_ + "/*.log]\n    storage: " + dir_ +
                           "/state/checkpoints\n"
                           "exporters:\n  otlp:\n    endpoint: 127.0.0.1:4317\n"
                           "    tls: {ca_file: " +
                           dir_ +
                           "/cert.pem}\n"
                           "service:\n  telemetry: {metrics: {level: none}}\n"
                           "  pipelines:\n    logs: {receivers: [filelog], exporters: [otlp]}\n");
  auto v = tern("validate -c " + cfg);
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_THAT(v.output, HasSubstr("configuration is valid"));
}

TEST(ComponentsCli, ListsEveryTypeWithStability) {
  auto r = tern("components");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* line :
       {"receivers:\n  - name: otlp\n", "  - name: filelog\n", "processors:\n", "  - name: memory_limiter\n",
        "exporters:\n", "  - name: elasticsearch\n", "  - name: otlphttp\n", "  - name: debug\n",
        "extensions:\n", "  - name: file_storage\n", "      logs: Stable\n", "      extension: Beta\n"})
    EXPECT_THAT(r.output, HasSubstr(line));
}
