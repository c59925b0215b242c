#include "net/tls.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>

#include "core/error.h"
#include "core/private_file.h"

namespace flowperf::net {
namespace {

// OpenSSL's last error, in words ("" when there is none).
std::string openssl_error() {
  unsigned long e = ERR_get_error();
  std::string text;
  while (e != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!text.empty()) text += "; ";
    text += buf;
    e = ERR_get_error();
  }
  return text;
}

bool poll_until(int fd, short events, sys::Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - sys::Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return false;
  }
}

// TLS 1.2 with an ephemeral (EC)DH key exchange and an AEAD cipher, or TLS
// 1.3 (whose suites are all both): forward secrecy, and no CBC, RC4 or
// static-RSA suite that an older peer could talk the handshake down to.
constexpr const char* kTls12Ciphers = "ECDHE+AESGCM:ECDHE+CHACHA20:DHE+AESGCM:DHE+CHACHA20";

SSL_CTX* new_context(const SSL_METHOD* method) {
  SSL_CTX* ctx = SSL_CTX_new(method);
  if (!ctx) throw runtime_error("cannot set up TLS: " + openssl_error());
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
      SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1) {
    SSL_CTX_free(ctx);
    throw runtime_error("cannot set up TLS (protocol floor and ciphers): " + openssl_error());
  }
  SSL_CTX_set_options(
      ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  return ctx;
}

}  // namespace

std::shared_ptr<TlsContext> TlsContext::server(const std::string& cert_file,
                                               const std::string& key_file) {
  SSL_CTX* raw = new_context(TLS_server_method());
  std::shared_ptr<TlsContext> ctx(new TlsContext(raw));
  if (SSL_CTX_use_certificate_chain_file(raw, cert_file.c_str()) != 1)
    throw usage_error("--tls-cert " + cert_file + ": cannot load a PEM certificate from it (" +
                      openssl_error() + ")");
  require_private_file(-1, key_file, "--tls-key " + key_file);
  if (SSL_CTX_use_PrivateKey_file(raw, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    // A key that loads but belongs to another certificate is said as such.
    if (ERR_GET_REASON(ERR_peek_last_error()) != X509_R_KEY_VALUES_MISMATCH)
      throw usage_error("--tls-key " + key_file + ": cannot load a PEM private key from it (" +
                        openssl_error() + ")");
    ERR_clear_error();
  }
  if (SSL_CTX_check_private_key(raw) != 1)
    throw usage_error("--tls-key " + key_file +
                      " is not the key of the certificate in --tls-cert " + cert_file);
  // One connection, one test: no sessions to resume, no tickets.
  SSL_CTX_set_session_cache_mode(raw, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(raw, 0);
  return ctx;
}

std::shared_ptr<TlsContext> TlsContext::client(const std::string& ca_file) {
  SSL_CTX* raw = new_context(TLS_client_method());
  std::shared_ptr<TlsContext> ctx(new TlsContext(raw));
  if (SSL_CTX_load_verify_locations(raw, ca_file.c_str(), nullptr) != 1)
    throw usage_error("--tls-ca " + ca_file + ": cannot load PEM CA certificates from it (" +
                      openssl_error() + ")");
  SSL_CTX_set_verify(raw, SSL_VERIFY_PEER, nullptr);
  return ctx;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

std::unique_ptr<TlsChannel> TlsChannel::open(int fd, const TlsContext& ctx) {
  ERR_clear_error();
  SSL* ssl = SSL_new(ctx.get());
  if (!ssl) throw runtime_error("cannot start TLS: " + openssl_error());
  std::unique_ptr<TlsChannel> ch(new TlsChannel(fd, ssl));
  // OpenSSL's calls then return at once, and the deadlines are kept by poll().
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  SSL_set_fd(ssl, fd);
  return ch;
}

std::unique_ptr<TlsChannel> TlsChannel::accept(int fd, const TlsContext& ctx,
                                               Clock::time_point deadline) {
  std::unique_ptr<TlsChannel> ch = open(fd, ctx);
  SSL* ssl = ch->ssl_;
  for (;;) {
    const int r = SSL_accept(ssl);
    if (r == 1) return ch;
    bool closed = false;
    if (!ch->wait_for(r, deadline, &closed))
      throw runtime_error("TLS handshake with a client failed: " +
                          (closed                     ? std::string("it closed the connection")
                           : Clock::now() >= deadline ? std::string("it took too long")
                                                      : openssl_error()));
  }
}

std::unique_ptr<TlsChannel> TlsChannel::connect(int fd, const TlsContext& ctx,
                                                const std::string& host,
                                                Clock::time_point deadline) {
  std::unique_ptr<TlsChannel> ch = open(fd, ctx);
  SSL* ssl = ch->ssl_;
  // The certificate must name the host the user gave: an address, or a name.
  in6_addr any;
  const bool literal = ::inet_pton(AF_INET, host.c_str(), &any) == 1 ||
                       ::inet_pton(AF_INET6, host.c_str(), &any) == 1;
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  // Unchecked, a failure here would leave no name to match: any
  // certificate the CA signed would then do.
  const bool named = literal ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) == 1
                             : SSL_set1_host(ssl, host.c_str()) == 1 &&
                                   SSL_set_tlsext_host_name(ssl, host.c_str()) == 1;
  if (!named)
    throw usage_error("TLS: cannot check the server's certificate against the name '" + host +
                      "' (" + openssl_error() + "); give the host as a DNS name or an address");
  for (;;) {
    const int r = SSL_connect(ssl);
    if (r == 1) return ch;
    const long verified = SSL_get_verify_result(ssl);
    if (verified != X509_V_OK)
      throw runtime_error("the server's TLS certificate is not trusted: " +
                          std::string(X509_verify_cert_error_string(verified)) +
                          " — check --tls-ca, and that the certificate names " + host);
    bool closed = false;
    if (!ch->wait_for(r, deadline, &closed))
      throw runtime_error(
          "TLS handshake failed: " +
          (closed ? std::string("the server closed the connection — is it a flowperf server "
                                "started with --tls-cert?")
           : Clock::now() >= deadline
               ? std::string("no answer in time — is it a flowperf server started with --tls-cert?")
               : openssl_error()));
  }
}

TlsChannel::~TlsChannel() { SSL_free(ssl_); }

bool TlsChannel::wait_for(int ret, Clock::time_point deadline, bool* closed) {
  switch (SSL_get_error(ssl_, ret)) {
    case SSL_ERROR_WANT_READ:
      return poll_until(fd_, POLLIN, deadline);
    case SSL_ERROR_WANT_WRITE:
      return poll_until(fd_, POLLOUT, deadline);
    case SSL_ERROR_ZERO_RETURN:
      *closed = true;
      return false;
    case SSL_ERROR_SYSCALL:
      *closed = ERR_peek_error() == 0;  // an EOF or a reset, not a TLS failure
      return false;
    default:
      return false;
  }
}

sys::IoStatus TlsChannel::write_all(const void* buf, size_t len, Clock::time_point deadline) {
  const char* p = static_cast<const char*>(buf);
  while (len > 0) {
    size_t n = 0;
    ERR_clear_error();
    const int r = SSL_write_ex(ssl_, p, len, &n);
    if (r == 1) {
      p += n;
      len -= n;
      continue;
    }
    bool closed = false;
    if (!wait_for(r, deadline, &closed))
      return closed                     ? sys::IoStatus::kClosed
             : Clock::now() >= deadline ? sys::IoStatus::kTimeout
                                        : sys::IoStatus::kError;
  }
  return sys::IoStatus::kOk;
}

sys::IoStatus TlsChannel::read_exact(void* buf, size_t len, Clock::time_point deadline,
                                     size_t* got) {
  char* p = static_cast<char*>(buf);
  size_t done = 0;
  sys::IoStatus status = sys::IoStatus::kOk;
  while (done < len) {
    size_t n = 0;
    ERR_clear_error();
    const int r = SSL_read_ex(ssl_, p + done, len - done, &n);
    if (r == 1) {
      done += n;
      continue;
    }
    bool closed = false;
    if (!wait_for(r, deadline, &closed)) {
      status = closed                     ? sys::IoStatus::kClosed
               : Clock::now() >= deadline ? sys::IoStatus::kTimeout
                                          : sys::IoStatus::kError;
      if (status == sys::IoStatus::kError) failure_ = openssl_error();
      break;
    }
  }
  if (got) *got = done;
  return status;
}

bool TlsChannel::wait_readable(Clock::time_point deadline) {
  if (SSL_pending(ssl_) > 0) return true;
  return poll_until(fd_, POLLIN, deadline);
}

bool TlsChannel::failed_integrity() const {
  // "decryption failed or bad record mac" here, "... alert bad record mac"
  // from the peer that found it.
  return failure_.find("bad record mac") != std::string::npos;
}

std::string TlsChannel::description() const {
  return std::string(SSL_get_version(ssl_)) + " " + SSL_get_cipher_name(ssl_);
}

}  // namespace flowperf::net
