// Authentication's pieces: the proofs (RFC 4231's HMAC-SHA256 vector pins
// the primitive), what each input changes, hex, and key files with every
// refusal they can earn.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>

#include "auth/handshake.h"
#include "auth/keys.h"
#include "core/error.h"
#include "support/temp_dir.h"

namespace flowperf::auth {
namespace {

using testing::TempDir;

Transcript sample() {
  Transcript t;
  t.version = 2;
  t.name = "alice";
  t.client_nonce = Bytes(kNonceBytes, 0x11);
  t.server_nonce = Bytes(kNonceBytes, 0x22);
  return t;
}

// The expected values were computed outside flowperf with
// `openssl dgst -sha256 -hmac SECRET` over the bytes the comments give.
TEST(Handshake, ProofsAreHmacSha256OverTheirTranscript) {
  // "flowperf client proof" NUL, version 0 (4 bytes), empty name, NUL.
  EXPECT_EQ(to_hex(client_proof("0123456789abcdef", Transcript{})),
            "6ca85becff937478f25e7e8a7aa78a6f2d079e8c84c5bbdf477195e748c35507");
  // "flowperf server proof" NUL, version 2, "bob", NUL.
  Transcript t;
  t.version = 2;
  t.name = "bob";
  EXPECT_EQ(to_hex(server_proof("0123456789abcdef", t)),
            "d118df28bc1b8d69c1a8f33685572304358091b8113624054c4be11992e500e0");
}

TEST(Handshake, DataTokenIsTheFirstBytesOfItsHmac) {
  // HMAC-SHA256("Jefe", "flowperf data token") = a4242fb27444c801...; the
  // token is its first 8 bytes as the machine lays out a uint64_t.
  const std::string jefe = "Jefe";
  const Bytes expected = *from_hex("a4242fb27444c801", 8);
  uint64_t want;
  std::memcpy(&want, expected.data(), 8);
  EXPECT_EQ(data_token(Bytes(jefe.begin(), jefe.end())), want);
}

TEST(Handshake, EveryInputChangesTheProof) {
  const std::string secret = "0123456789abcdef0123";
  const Transcript base = sample();
  const Bytes p = client_proof(secret, base);
  ASSERT_EQ(p.size(), kProofBytes);
  EXPECT_TRUE(same(p, client_proof(secret, base)));
  EXPECT_FALSE(same(p, client_proof(secret + "x", base)));
  Transcript t = base;
  t.version = 3;
  EXPECT_FALSE(same(p, client_proof(secret, t)));
  t = base;
  t.name = "alicf";
  EXPECT_FALSE(same(p, client_proof(secret, t)));
  t = base;
  t.client_nonce[31] ^= 1;
  EXPECT_FALSE(same(p, client_proof(secret, t)));
  t = base;
  t.server_nonce[0] ^= 1;
  EXPECT_FALSE(same(p, client_proof(secret, t)));
  // The directions and the session key differ: one cannot stand for another.
  EXPECT_FALSE(same(p, server_proof(secret, base)));
  EXPECT_FALSE(same(p, session_key(secret, base)));
  EXPECT_FALSE(same(server_proof(secret, base), session_key(secret, base)));
  // A name and nonce shifted across the separator do not collide.
  t = base;
  t.name = "alice";
  t.name.push_back(static_cast<char>(0x11));
  t.client_nonce.erase(t.client_nonce.begin());
  EXPECT_FALSE(same(p, client_proof(secret, t)));
}

TEST(Handshake, NoncesAreFreshAndFullLength) {
  Bytes a = random_nonce(), b = random_nonce();
  EXPECT_EQ(a.size(), kNonceBytes);
  EXPECT_FALSE(same(a, b));
}

TEST(Handshake, SameNeedsEqualSizes) {
  EXPECT_TRUE(same(Bytes{1, 2, 3}, Bytes{1, 2, 3}));
  EXPECT_FALSE(same(Bytes{1, 2, 3}, Bytes{1, 2}));
  EXPECT_FALSE(same(Bytes{1, 2, 3}, Bytes{1, 2, 4}));
  EXPECT_TRUE(same(Bytes{}, Bytes{}));
}

TEST(Handshake, Hex) {
  EXPECT_EQ(to_hex(Bytes{0x00, 0xab, 0xff}), "00abff");
  auto b = from_hex("00ABff", 3);
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, (Bytes{0x00, 0xab, 0xff}));
  EXPECT_FALSE(from_hex("00ab", 3));      // short
  EXPECT_FALSE(from_hex("00abff00", 3));  // long
  EXPECT_FALSE(from_hex("00agff", 3));    // not hex
  EXPECT_FALSE(from_hex("0 abff", 3));
}

// ---- key files ----

class KeyFile : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = std::make_unique<TempDir>("flowperf-keys");
    dir_ = tmp_->path().string();
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override { tmp_.reset(); }
  std::string write(const std::string& text, mode_t mode = 0600) {
    std::string path = dir_ + "/keys" + std::to_string(++n_);
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
    return path;
  }
  static std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      return e.what();
    }
    return "(no error)";
  }
  std::unique_ptr<TempDir> tmp_;
  std::string dir_;
  int n_ = 0;
};

TEST_F(KeyFile, ServerFileWithCommentsAndBlankLines) {
  auto keys = load_server_keys(
      write("# who may test here\n\nalice 0123456789abcdef0123\r\n  bob\tfedcba9876543210fedc\n"));
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys["alice"], "0123456789abcdef0123");
  EXPECT_EQ(keys["bob"], "fedcba9876543210fedc");
}

TEST_F(KeyFile, ClientFileHoldsOneKey) {
  Key k = load_client_key(write("carol@lab 0123456789abcdef\n"));
  EXPECT_EQ(k.name, "carol@lab");
  EXPECT_EQ(k.secret, "0123456789abcdef");
  std::string e =
      error_of([&] { load_client_key(write("a 0123456789abcdef\nb 0123456789abcdef\n")); });
  EXPECT_NE(e.find("2 keys in it, line 1 and line 2"), std::string::npos) << e;
}

TEST_F(KeyFile, FileOthersCanReadIsRefused) {
  const std::string path = write("alice 0123456789abcdef\n", 0644);
  std::string e = error_of([&] { load_server_keys(path); });
  EXPECT_NE(e.find("mode 0644"), std::string::npos) << e;
  EXPECT_NE(e.find("chmod 600 " + path), std::string::npos) << e;
  e = error_of([&] { load_client_key(write("alice 0123456789abcdef\n", 0660)); });
  EXPECT_NE(e.find("--key "), std::string::npos) << e;
  EXPECT_NE(e.find("mode 0660"), std::string::npos) << e;
  // Owner-only modes are fine, read-only too.
  EXPECT_EQ(load_client_key(write("alice 0123456789abcdef\n", 0400)).name, "alice");
}

TEST_F(KeyFile, EveryMalformedLineIsNamed) {
  std::string e = error_of([&] { load_server_keys(write("alice\n")); });
  EXPECT_NE(e.find("line 1: expected two words, NAME SECRET"), std::string::npos) << e;
  e = error_of([&] { load_server_keys(write("# x\nalice 0123456789abcdef extra\n")); });
  EXPECT_NE(e.find("line 2: expected two words"), std::string::npos) << e;
  e = error_of([&] { load_server_keys(write("al/ice 0123456789abcdef\n")); });
  EXPECT_NE(e.find("line 1: the name (the first word) is not 1-64 characters"), std::string::npos)
      << e;
  e = error_of([&] { load_server_keys(write(std::string(65, 'n') + " 0123456789abcdef\n")); });
  EXPECT_NE(e.find("is not 1-64 characters"), std::string::npos) << e;
  e = error_of([&] { load_server_keys(write("alice short\n")); });
  EXPECT_NE(e.find("the secret (the second word) is 5 characters; give at least 16"),
            std::string::npos)
      << e;
  e = error_of([&] { load_server_keys(write("a 0123456789abcdef\na 0123456789abcdeg\n")); });
  EXPECT_NE(e.find("line 2: the name of line 1 is given again"), std::string::npos) << e;
  // A line written SECRET NAME: the error never shows the secret (it would
  // pass for a name, and the name for a short secret).
  const std::string secret = "0123456789abcdef0123456789abcdef";
  e = error_of([&] { load_server_keys(write(secret + " alice\n")); });
  EXPECT_NE(e.find("line 1: the secret (the second word) is 5 characters"), std::string::npos) << e;
  EXPECT_EQ(e.find(secret), std::string::npos) << e;
  e = error_of([&] { load_server_keys(write("alice " + secret + "\n" + secret + " alice\n")); });
  EXPECT_EQ(e.find(secret), std::string::npos) << e;
  e = error_of([&] {
    load_server_keys(write("x " + secret + "\n" + secret + " 0123456789abcdefg\n" + secret +
                           " 0123456789abcdefh\n"));
  });
  EXPECT_NE(e.find("line 3: the name of line 2 is given again"), std::string::npos) << e;
  EXPECT_EQ(e.find(secret), std::string::npos) << e;
  e = error_of([&] { load_server_keys(write("# nothing\n\n")); });
  EXPECT_NE(e.find("no keys in it"), std::string::npos) << e;
  e = error_of([&] { load_server_keys(dir_ + "/absent"); });
  EXPECT_NE(e.find("cannot open it: No such file"), std::string::npos) << e;
  e = error_of([&] { load_server_keys(dir_); });
  EXPECT_NE(e.find("not a regular file"), std::string::npos) << e;
}

}  // namespace
}  // namespace flowperf::auth
