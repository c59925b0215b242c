// TLS for a control connection (OpenSSL's libssl): a server's certificate
// and key, a client's trusted CA, and a Channel that reads and writes
// through TLS on a socket the caller keeps owning. Handshakes are bounded
// by a deadline; every failure is an Error whose message says what to check.
// The data connections are not encrypted: TLS protects what the two ends
// say to each other (the test, the keys' proofs, the results).
#pragma once

#include <memory>
#include <string>

#include "net/channel.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace flowperf::net {

class TlsContext {
 public:
  // A server's: the certificate chain and private key (PEM files). Throws a
  // usage Error naming the file when either cannot be loaded or they do not match.
  static std::shared_ptr<TlsContext> server(const std::string& cert_file,
                                            const std::string& key_file);
  // A client's: the CA certificates (PEM) a server's certificate must chain to.
  static std::shared_ptr<TlsContext> client(const std::string& ca_file);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;
  SSL_CTX* get() const { return ctx_; }

 private:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
};

class TlsChannel final : public Channel {
 public:
  // The server's half of the handshake on `fd`. Throws a runtime Error.
  static std::unique_ptr<TlsChannel> accept(int fd, const TlsContext& ctx,
                                            Clock::time_point deadline);
  // The client's half; the certificate must name `host` (a DNS name or an
  // IP address). Throws a runtime Error that says why the server was not trusted.
  static std::unique_ptr<TlsChannel> connect(int fd, const TlsContext& ctx, const std::string& host,
                                             Clock::time_point deadline);
  ~TlsChannel() override;
  TlsChannel(const TlsChannel&) = delete;
  TlsChannel& operator=(const TlsChannel&) = delete;

  int fd() const override { return fd_; }
  sys::IoStatus write_all(const void* buf, size_t len, Clock::time_point deadline) override;
  sys::IoStatus read_exact(void* buf, size_t len, Clock::time_point deadline,
                           size_t* got = nullptr) override;
  bool wait_readable(Clock::time_point deadline) override;
  // "TLSv1.3 TLS_AES_256_GCM_SHA384", for logs.
  std::string description() const;
  std::string failure() const override { return failure_; }
  bool failed_integrity() const override;

 private:
  TlsChannel(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}
  // A channel on fd, before its handshake.
  static std::unique_ptr<TlsChannel> open(int fd, const TlsContext& ctx);
  // Waits for what OpenSSL asked for (after `ret` from a call); false when
  // the deadline passed or the call failed for good.
  bool wait_for(int ret, Clock::time_point deadline, bool* closed);

  int fd_;
  SSL* ssl_;
  std::string failure_;  // OpenSSL's words for the last kError
};

}  // namespace flowperf::net
