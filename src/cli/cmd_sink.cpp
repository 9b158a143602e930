// `tern sink`: an Elasticsearch-compatible _bulk endpoint for tests, demos and benchmarks.
#include <pthread.h>
#include <csignal>
#include <cstdio>

#include <string>

#include "cli/command.h"
#include "cli/flag_checks.h"
#include "net/http_server.h"
#include "sink/sink_server.h"

namespace {
// Each server thread runs the io_context; beyond this only memory grows.
constexpr int kMaxThreads = 1024;
// An hour: a test that wants a slower answer wants none (--drop-connection-rate).
constexpr int kMaxLatencyMs = 3'600'000;

const tern::cli::RegisterCommand kSinkCommand{
    "sink", [](CLI::App& app) {
      auto* cmd = app.add_subcommand("sink", "Run an Elasticsearch-compatible bulk sink");
      auto opt = std::make_shared<tern::sink::SinkOptions>();
      auto listen = std::make_shared<std::string>("127.0.0.1:9200");
      cmd->add_option("--listen", *listen, "HOST:PORT (port 0 = any free port)")->capture_default_str();
      cmd->add_option("--threads", opt->threads, "server threads")
          ->capture_default_str()
          ->check(tern::cli::integer_range(1, kMaxThreads));
      cmd->add_option("--dump", opt->dump_path, "append accepted documents to this NDJSON file");
      cmd->add_option("--seed", opt->seed, "seed of the fault decisions")->capture_default_str();
      cmd->add_option("--item-429-rate", opt->item_429_rate, "probability of an item 429")
          ->check(tern::cli::probability());
      cmd->add_option("--request-429-rate", opt->request_429_rate, "probability of a whole-request 429")
          ->check(tern::cli::probability());
      cmd->add_option("--request-503-rate", opt->request_503_rate, "probability of a whole-request 503")
          ->check(tern::cli::probability());
      cmd->add_option("--drop-connection-rate", opt->drop_connection_rate,
                      "probability of closing without an answer")
          ->check(tern::cli::probability());
      cmd->add_option("--max-content-length", opt->max_content_length, "bytes, uncompressed (413 above)")
          ->capture_default_str();
      cmd->add_option("--latency-ms", opt->latency_ms, "delay of every _bulk answer")
          ->capture_default_str()
          ->check(tern::cli::integer_range(0, kMaxLatencyMs));
      cmd->add_option("--mapping-error-field", opt->mapping_error_field,
                      "documents with this field get item 400");
      auto* cert = cmd->add_option("--tls-cert", opt->tls.cert_file,
                                   "serve https with this certificate chain (PEM), as Elasticsearch 8 does");
      auto* key = cmd->add_option("--tls-key", opt->tls.key_file, "the certificate's private key (PEM)");
      cert->needs(key);
      key->needs(cert);
      cmd->add_option("--tls-client-ca", opt->tls.client_ca_file,
                      "require client certificates signed by these CAs (PEM; mutual TLS)")
          ->needs(cert);
      cmd->callback([opt, listen] {
        auto colon = listen->rfind(':');
        if (colon == std::string::npos) throw CLI::ValidationError("--listen", "expected HOST:PORT");
        std::string host = listen->substr(0, colon);
        if (host.size() >= 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
        opt->host = host;
        // std::stoi alone would accept "9200abc" and wrap 70000 into a different port.
        const std::string port_str = listen->substr(colon + 1);
        if (port_str.empty() || port_str.size() > 5 ||
            port_str.find_first_not_of("0123456789") != std::string::npos || std::stoul(port_str) > 65535) {
          throw CLI::ValidationError("--listen", "port must be a number 0..65535, got [" + port_str + "]");
        }
        opt->port = static_cast<uint16_t>(std::stoul(port_str));
        // Block the signals before the server threads start so only sigwait sees them.
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &set, nullptr);
        tern::sink::SinkServer server(*opt);
        uint16_t port = 0;
        try {
          port = server.start();
        } catch (const std::exception& e) {
          std::fprintf(stderr, "tern sink: cannot start: %s\n", e.what());
          throw CLI::RuntimeError(1);
        }
        // [::1]:PORT for IPv6, as --listen takes it: "::1:PORT" could not be read back.
        std::printf("tern sink %slistening on %s\n", opt->tls.enabled() ? "(TLS) " : "",
                    tern::net::join_host_port(opt->host, port).c_str());
        std::fflush(stdout);
        int sig = 0;
        sigwait(&set, &sig);
        server.stop();
      });
    }};
}  // namespace
