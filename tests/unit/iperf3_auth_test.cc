// iperf3's RSA authentication (auth/iperf3_rsa.h, auth/iperf3_users.h): the
// token's text and padding, base64, key files, the users file, the clock
// check and the server's decision, with keys made here. A token made by the
// real iperf3 is tested end to end (tests/e2e/iperf3_auth_interop_test.cc).
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "auth/iperf3_rsa.h"
#include "auth/iperf3_users.h"
#include "core/error.h"
#include "support/temp_dir.h"

namespace flowperf::auth {
namespace {

using testing::TempDir;

// `printf '{mario}rossi' | sha256sum`
constexpr const char* kMarioRossi =
    "bf7a49a846d44b454a5d11e7acfaf13d138bbe0b7483aa3e050879700572709b";
constexpr int64_t kNow = 1796593723;  // a time recorded from iperf3 3.12

std::string hex(const Bytes& b) { return to_hex(b); }

// A temporary directory with a fresh 2048-bit key pair in PEM files.
class KeyDir : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir("iperf3_auth_test");
    ASSERT_FALSE(dir_->path().empty());
    EVP_PKEY* k = EVP_RSA_gen(2048);
    ASSERT_NE(k, nullptr);
    write(path("private.pem"), [&](FILE* f) {
      return PEM_write_PrivateKey(f, k, nullptr, nullptr, 0, nullptr, nullptr);
    });
    write(path("public.pem"), [&](FILE* f) { return PEM_write_PUBKEY(f, k); });
    // The same key under a passphrase.
    write(path("encrypted.pem"), [&](FILE* f) {
      char pass[] = "secret";
      return PEM_write_PrivateKey(f, k, EVP_aes_128_cbc(), reinterpret_cast<unsigned char*>(pass),
                                  6, nullptr, nullptr);
    });
    EVP_PKEY_free(k);
    EVP_PKEY* other = EVP_RSA_gen(2048);
    write(path("other.pem"), [&](FILE* f) {
      return PEM_write_PrivateKey(f, other, nullptr, nullptr, 0, nullptr, nullptr);
    });
    EVP_PKEY_free(other);
    EVP_PKEY* ec = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
    write(path("ec.pem"), [&](FILE* f) {
      return PEM_write_PrivateKey(f, ec, nullptr, nullptr, 0, nullptr, nullptr);
    });
    EVP_PKEY_free(ec);
  }
  static void TearDownTestSuite() { delete dir_; }
  template <typename F>
  static void write(const std::string& p, F f) {
    FILE* file = std::fopen(p.c_str(), "w");
    ASSERT_NE(file, nullptr);
    ASSERT_EQ(f(file), 1);
    std::fclose(file);
    ASSERT_EQ(::chmod(p.c_str(), 0600), 0);  // as `openssl genrsa` writes a key
  }
  static std::string path(const std::string& name) { return *dir_ / name; }
  static RsaKey pub() { return load_rsa_public_key(path("public.pem"), "--rsa-public-key-path"); }
  static RsaKey priv() {
    return load_rsa_private_key(path("private.pem"), "--rsa-private-key-path");
  }
  static TempDir* dir_;
};
TempDir* KeyDir::dir_ = nullptr;

// ---- the password hash -----------------------------------------------------

TEST(Iperf3PasswordHash, IsSha256OfBracedUserThenPassword) {
  EXPECT_EQ(hex(iperf3_password_hash("mario", "rossi")), kMarioRossi);
  EXPECT_NE(hex(iperf3_password_hash("mario", "Rossi")), kMarioRossi);
  EXPECT_NE(hex(iperf3_password_hash("mari", "orossi")), kMarioRossi);
}

// ---- the token's text ------------------------------------------------------

TEST(Iperf3TokenText, IsTheFormat312Writes) {
  EXPECT_EQ(iperf3_token_text({"mario", "rossi", kNow}),
            "user: mario\npwd:  rossi\nts:   1796593723");
}

TEST(Iperf3TokenText, ReadsBackWhatItWrites) {
  const Iperf3Credentials c{"mario", "p@ss,w0rd!", kNow};
  EXPECT_EQ(parse_iperf3_token_text(iperf3_token_text(c)), c);
  const Iperf3Credentials negative{"a", "b", -5};
  EXPECT_EQ(parse_iperf3_token_text(iperf3_token_text(negative)), negative);
}

TEST(Iperf3TokenText, ReadsAsSscanfDoes) {
  // Whitespace in the format matches any run of it, none included; text
  // after the time, and after a NUL, is ignored.
  auto c = parse_iperf3_token_text("user:mario pwd:rossi ts:42 trailing");
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, (Iperf3Credentials{"mario", "rossi", 42}));
  EXPECT_TRUE(parse_iperf3_token_text(std::string("user: a\npwd:  b\nts:   7") + '\0' + "junk"));
  // A password with a space is read as its first word, and what follows
  // is not "pwd:": no credentials (3.12's server fails the same way).
  EXPECT_FALSE(parse_iperf3_token_text("user: mario\npwd:  ro ssi\nts:   42"));
  EXPECT_FALSE(parse_iperf3_token_text("user: mario\npwd:  \nts:   42"));
  EXPECT_FALSE(parse_iperf3_token_text("user: mario\npwd:  rossi\nts:   x"));
  EXPECT_FALSE(parse_iperf3_token_text("user: mario\npwd:  rossi\n"));
  EXPECT_FALSE(parse_iperf3_token_text(" user: mario\npwd:  rossi\nts:   42"));
  EXPECT_FALSE(parse_iperf3_token_text("user: mario\npass: rossi\nts:   42"));
  EXPECT_FALSE(parse_iperf3_token_text("user: mario\npwd:  rossi\nts:   99999999999999999999"));
  EXPECT_FALSE(parse_iperf3_token_text(""));
}

TEST(Iperf3TokenText, OneWordNamesAndPasswordsOnly) {
  EXPECT_TRUE(iperf3_token_word("mario"));
  EXPECT_FALSE(iperf3_token_word(""));
  EXPECT_FALSE(iperf3_token_word("ro ssi"));
  EXPECT_FALSE(iperf3_token_word("ro\tssi"));
  EXPECT_FALSE(iperf3_token_word("rossi\n"));
}

// ---- base64 ----------------------------------------------------------------

TEST(Iperf3Base64, OneLineWithPadding) {
  auto b = [](const std::string& s) { return Bytes(s.begin(), s.end()); };
  EXPECT_EQ(base64_encode(b("")), "");
  EXPECT_EQ(base64_encode(b("f")), "Zg==");
  EXPECT_EQ(base64_encode(b("fo")), "Zm8=");
  EXPECT_EQ(base64_encode(b("foo")), "Zm9v");
  EXPECT_EQ(base64_encode(Bytes(256, 0xff)).size(), 344u);  // a 2048-bit token's length
  EXPECT_EQ(base64_encode(Bytes(256, 0xff)).find('\n'), std::string::npos);
  EXPECT_EQ(base64_decode("Zg=="), b("f"));
  EXPECT_EQ(base64_decode("Zm8="), b("fo"));
  EXPECT_EQ(base64_decode("Zm9vYmFy"), b("foobar"));
  for (const char* bad : {"", "Zg=", "Zg", "Z===", "Zm9v\n", "Zm9v Zm9v", "Zm=v", "Zm9*"})
    EXPECT_FALSE(base64_decode(bad)) << bad;
}

// ---- keys and tokens -------------------------------------------------------

constexpr RsaPadding kOaep = RsaPadding::kOaep, kPkcs1 = RsaPadding::kPkcs1;

TEST_F(KeyDir, TokenRoundTrip) {
  const RsaKey pk = pub(), sk = priv();
  EXPECT_EQ(pk.bits(), 2048);
  EXPECT_EQ(rsa_max_plaintext(pk, kPkcs1), 245u);
  EXPECT_EQ(rsa_max_plaintext(pk, kOaep), 214u);  // 256 - 2 * 20 (SHA-1) - 2
  const Iperf3Credentials c{"mario", "rossi", kNow};
  for (RsaPadding padding : {kOaep, kPkcs1}) {
    const std::string token = make_iperf3_token(c, pk, padding);
    EXPECT_EQ(token.size(), 344u);  // 256 bytes of ciphertext, as iperf3's recorded tokens
    EXPECT_EQ(open_iperf3_token(token, sk, padding), c);
    // Randomized padding: the same credentials never make the same token.
    EXPECT_NE(make_iperf3_token(c, pk, padding), token);
  }
  // Each padding's token opens with that padding only: a 3.12 client's
  // token on an OAEP server (and the other way round) does not open.
  EXPECT_FALSE(open_iperf3_token(make_iperf3_token(c, pk, kOaep), sk, kPkcs1));
  EXPECT_FALSE(open_iperf3_token(make_iperf3_token(c, pk, kPkcs1), sk, kOaep));
}

TEST_F(KeyDir, OaepTokenIsWhatOpenSslsOaepWithSha1Opens) {
  // iperf3 3.17+ sets only RSA_PKCS1_OAEP_PADDING: OpenSSL's defaults, SHA-1
  // for the label hash and for MGF1. Opened here with those set explicitly.
  const RsaKey sk = priv();
  const std::string text = iperf3_token_text({"mario", "rossi", kNow});
  auto cipher = base64_decode(make_iperf3_token({"mario", "rossi", kNow}, pub(), kOaep));
  ASSERT_TRUE(cipher);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(nullptr, sk.get(), nullptr);
  ASSERT_GT(EVP_PKEY_decrypt_init(ctx), 0);
  ASSERT_GT(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING), 0);
  ASSERT_GT(EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha1()), 0);
  ASSERT_GT(EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha1()), 0);
  Bytes out(256);
  size_t len = out.size();
  ASSERT_GT(EVP_PKEY_decrypt(ctx, out.data(), &len, cipher->data(), cipher->size()), 0);
  EVP_PKEY_CTX_free(ctx);
  EXPECT_EQ(std::string(out.begin(), out.begin() + static_cast<long>(len)), text);
}

TEST_F(KeyDir, TokenIsPkcs1V15Type2) {
  // Decrypted without padding removal, the block is 00 02 <nonzero random>
  // 00 <the text>: PKCS#1 v1.5, not OAEP (whose block starts 00, then a
  // masked seed).
  const RsaKey sk = priv();
  const std::string text = iperf3_token_text({"mario", "rossi", kNow});
  auto cipher = base64_decode(make_iperf3_token({"mario", "rossi", kNow}, pub(), kPkcs1));
  ASSERT_TRUE(cipher);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(nullptr, sk.get(), nullptr);
  ASSERT_GT(EVP_PKEY_decrypt_init(ctx), 0);
  ASSERT_GT(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), 0);
  Bytes block(256);
  size_t len = block.size();
  ASSERT_GT(EVP_PKEY_decrypt(ctx, block.data(), &len, cipher->data(), cipher->size()), 0);
  EVP_PKEY_CTX_free(ctx);
  ASSERT_EQ(len, 256u);
  EXPECT_EQ(block[0], 0x00);
  EXPECT_EQ(block[1], 0x02);
  const size_t sep = 256 - text.size() - 1;
  for (size_t i = 2; i < sep; ++i) EXPECT_NE(block[i], 0x00) << i;
  EXPECT_EQ(block[sep], 0x00);
  EXPECT_EQ(std::string(block.begin() + static_cast<long>(sep) + 1, block.end()), text);
}

TEST_F(KeyDir, TokenForAnotherKeyOrDamagedDoesNotOpen) {
  for (RsaPadding padding : {kOaep, kPkcs1}) {
    const std::string token = make_iperf3_token({"mario", "rossi", kNow}, pub(), padding);
    const RsaKey other = load_rsa_private_key(path("other.pem"), "--rsa-private-key-path");
    EXPECT_FALSE(open_iperf3_token(token, other, padding));
    std::string damaged = token;
    damaged[10] = damaged[10] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(open_iperf3_token(damaged, priv(), padding));
    EXPECT_FALSE(open_iperf3_token(token.substr(0, 340), priv(), padding));
    EXPECT_FALSE(open_iperf3_token("not base64!", priv(), padding));
    EXPECT_FALSE(open_iperf3_token("", priv(), padding));
  }
}

TEST_F(KeyDir, CredentialsTooLongForTheKeyAreRefused) {
  const std::string longpw(240, 'x');
  try {
    make_iperf3_token({"mario", longpw, kNow}, pub(), kPkcs1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at most 245"), std::string::npos) << e.what();
  }
  // OAEP holds less: 200 bytes of password fit v1.5 but not OAEP.
  const std::string pw200(200, 'x');
  EXPECT_NO_THROW(make_iperf3_token({"mario", pw200, kNow}, pub(), kPkcs1));
  try {
    make_iperf3_token({"mario", pw200, kNow}, pub(), kOaep);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at most 214"), std::string::npos) << e.what();
  }
}

TEST_F(KeyDir, KeyFilesThatDoNotLoadSayWhy) {
  auto message = [](auto load) -> std::string {
    try {
      load();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  const std::string missing =
      message([] { load_rsa_private_key("/nonexistent/key.pem", "--rsa-private-key-path"); });
  EXPECT_NE(missing.find("--rsa-private-key-path /nonexistent/key.pem: cannot open it: No such"),
            std::string::npos)
      << missing;
  const std::string pub_as_priv =
      message([] { load_rsa_private_key(path("public.pem"), "--rsa-private-key-path"); });
  EXPECT_NE(pub_as_priv.find("not a PEM private key"), std::string::npos) << pub_as_priv;
  const std::string priv_as_pub =
      message([] { load_rsa_public_key(path("private.pem"), "--rsa-public-key-path"); });
  EXPECT_NE(priv_as_pub.find("not a PEM public key"), std::string::npos) << priv_as_pub;
  const std::string encrypted =
      message([] { load_rsa_private_key(path("encrypted.pem"), "--rsa-private-key-path"); });
  EXPECT_NE(encrypted.find("encrypted with a passphrase"), std::string::npos) << encrypted;
  const std::string ec = message([] { load_rsa_private_key(path("ec.pem"), "--x"); });
  EXPECT_NE(ec.find("--x " + path("ec.pem") + ": the key is EC, not RSA"), std::string::npos) << ec;
  // A private key others may read is refused; a public one is public.
  std::filesystem::copy_file(path("private.pem"), path("shared.pem"));
  ASSERT_EQ(::chmod(path("shared.pem").c_str(), 0640), 0);
  const std::string shared =
      message([] { load_rsa_private_key(path("shared.pem"), "--rsa-private-key-path"); });
  EXPECT_NE(shared.find("--rsa-private-key-path " + path("shared.pem") +
                        ": the file may be read or written by others (mode 0640)"),
            std::string::npos)
      << shared;
  EXPECT_NE(shared.find("chmod 600 " + path("shared.pem")), std::string::npos) << shared;
  ASSERT_EQ(::chmod(path("public.pem").c_str(), 0644), 0);
  EXPECT_EQ(pub().bits(), 2048);
}

// ---- the users file --------------------------------------------------------

TEST(Iperf3Users, ReadsLinesSkipsCommentsAndBlanks) {
  const std::string text = std::string("# users\n\nmario,") + kMarioRossi +
                           "\r\n#luigi,0000\nluigi," + std::string(64, 'A') + "\nmario," +
                           std::string(64, '0');
  const auto users = parse_iperf3_users(text, "users.csv");
  ASSERT_EQ(users.size(), 3u);
  EXPECT_EQ(users[0].name, "mario");
  EXPECT_EQ(hex(users[0].hash), kMarioRossi);
  EXPECT_EQ(users[1].name, "luigi");
  EXPECT_EQ(hex(users[1].hash), std::string(64, 'a'));
  // A name may have more than one line; any of its hashes will do.
  EXPECT_TRUE(iperf3_password_matches(users, "mario", "rossi"));
  EXPECT_FALSE(iperf3_password_matches(users, "mario", "rossi "));
  EXPECT_FALSE(iperf3_password_matches(users, "luigi", "rossi"));
  EXPECT_FALSE(iperf3_password_matches(users, "Mario", "rossi"));
}

TEST(Iperf3Users, BadLinesAreNamed) {
  auto message = [](const std::string& text) -> std::string {
    try {
      parse_iperf3_users(text, "--authorized-users-path u.csv");
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      return e.what();
    }
    return "";
  };
  const std::string good = std::string("mario,") + kMarioRossi + "\n";
  std::string m = message(good + "# fine\nluigi\n");
  EXPECT_NE(m.find("--authorized-users-path u.csv, line 3: expected USERNAME,HASH"),
            std::string::npos)
      << m;
  m = message(good + "luigi,12ab\n");
  EXPECT_NE(m.find("line 2: the hash of 'luigi' is not 64 hex digits"), std::string::npos) << m;
  m = message(good + "luigi," + kMarioRossi + " \n");
  EXPECT_NE(m.find("line 2: the hash of 'luigi'"), std::string::npos) << m;
  m = message("lu igi," + std::string(kMarioRossi) + "\n");
  EXPECT_NE(m.find("line 1: the username 'lu igi' is empty or has a space"), std::string::npos)
      << m;
  m = message("," + std::string(kMarioRossi) + "\n");
  EXPECT_NE(m.find("line 1: the username '' is empty"), std::string::npos) << m;
  m = message("# nobody\n\n");
  EXPECT_NE(m.find("u.csv: no users in it"), std::string::npos) << m;
}

TEST(Iperf3Users, LoadsFromAFileOrSaysWhyNot) {
  char tmpl[] = "/tmp/iperf3_users_test.XXXXXX";
  const int fd = ::mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  const std::string line = std::string("mario,") + kMarioRossi + "\n";
  ASSERT_EQ(::write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  ::close(fd);
  EXPECT_EQ(load_iperf3_users(tmpl, "--authorized-users-path").size(), 1u);
  ::unlink(tmpl);
  try {
    load_iperf3_users(tmpl, "--authorized-users-path");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(std::string("--authorized-users-path ") + tmpl +
                                         ": cannot open it"),
              std::string::npos)
        << e.what();
  }
}

// ---- the clock -------------------------------------------------------------

TEST(Iperf3Skew, ThresholdIsInclusiveBothWays) {
  EXPECT_TRUE(within_skew(kNow, kNow, 10));
  EXPECT_TRUE(within_skew(kNow - 10, kNow, 10));
  EXPECT_TRUE(within_skew(kNow + 10, kNow, 10));
  EXPECT_FALSE(within_skew(kNow - 11, kNow, 10));
  EXPECT_FALSE(within_skew(kNow + 11, kNow, 10));
  EXPECT_TRUE(within_skew(kNow - 3600, kNow, 3600));
  // Any 64-bit time a token may carry.
  EXPECT_FALSE(within_skew(INT64_MIN, kNow, INT_MAX));
  EXPECT_FALSE(within_skew(INT64_MAX, INT64_MIN, INT_MAX));
  EXPECT_TRUE(within_skew(INT64_MAX, INT64_MAX - 1, 1));
}

// ---- the server's decision, with the clock injected -----------------------

TEST_F(KeyDir, DecisionOnEachKindOfToken) {
  const RsaKey pk = pub(), sk = priv();
  const auto users = parse_iperf3_users(std::string("mario,") + kMarioRossi, "u");
  auto decide = [&](const std::string& token, int64_t now = kNow) {
    return authorize_iperf3(token, {&sk, kOaep, kIperf3DefaultSkewSeconds, nullptr}, users, now);
  };
  auto token = [&](const std::string& u, const std::string& p, int64_t ts = kNow) {
    return make_iperf3_token({u, p, ts}, pk, kOaep);
  };
  Iperf3Decision d = decide(token("mario", "rossi"));
  EXPECT_EQ(d.verdict, Iperf3Verdict::kAuthorized);
  EXPECT_EQ(d.describe(kNow), "authorized user 'mario'");
  d = decide(token("mario", "wrong"));
  EXPECT_EQ(d.verdict, Iperf3Verdict::kWrongPassword);
  EXPECT_EQ(d.describe(kNow), "user 'mario': wrong password");
  d = decide(token("luigi", "rossi"));
  EXPECT_EQ(d.verdict, Iperf3Verdict::kUnknownUser);
  EXPECT_EQ(d.username, "luigi");
  d = decide("");
  EXPECT_EQ(d.verdict, Iperf3Verdict::kNoToken);
  EXPECT_EQ(d.describe(kNow), "no token");
  EXPECT_EQ(decide("bm90IGEgdG9rZW4=").verdict, Iperf3Verdict::kBadToken);
  // The client's clock 10 s either side of the server's passes; 11 s fails,
  // however good the password.
  EXPECT_EQ(decide(token("mario", "rossi", kNow - 10)).verdict, Iperf3Verdict::kAuthorized);
  EXPECT_EQ(decide(token("mario", "rossi", kNow + 10)).verdict, Iperf3Verdict::kAuthorized);
  d = decide(token("mario", "rossi", kNow - 11));
  EXPECT_EQ(d.verdict, Iperf3Verdict::kTimeSkew);
  EXPECT_NE(d.describe(kNow).find("too far from this server's clock"), std::string::npos);
  EXPECT_EQ(decide(token("mario", "rossi", kNow + 11)).verdict, Iperf3Verdict::kTimeSkew);
  // A threshold of the server's own.
  EXPECT_EQ(
      authorize_iperf3(token("mario", "rossi", kNow - 100), {&sk, kOaep, 100, nullptr}, users, kNow)
          .verdict,
      Iperf3Verdict::kAuthorized);
  // A 3.12 client's token (v1.5) on an OAEP server does not open; on a
  // server started with --use-pkcs1-padding it does.
  const std::string old = make_iperf3_token({"mario", "rossi", kNow}, pk, kPkcs1);
  EXPECT_EQ(decide(old).verdict, Iperf3Verdict::kBadToken);
  EXPECT_EQ(authorize_iperf3(old, {&sk, kPkcs1, 10, nullptr}, users, kNow).verdict,
            Iperf3Verdict::kAuthorized);
}

TEST_F(KeyDir, AGoodTokenIsTakenOnce) {
  const RsaKey pk = pub(), sk = priv();
  const auto users = parse_iperf3_users(std::string("mario,") + kMarioRossi, "u");
  Iperf3ReplayCache cache;
  const Iperf3TokenCheck check{&sk, kOaep, 10, &cache};
  const std::string token = make_iperf3_token({"mario", "rossi", kNow}, pk, kOaep);
  EXPECT_EQ(authorize_iperf3(token, check, users, kNow).verdict, Iperf3Verdict::kAuthorized);
  const Iperf3Decision again = authorize_iperf3(token, check, users, kNow + 1);
  EXPECT_EQ(again.verdict, Iperf3Verdict::kReplayed);
  EXPECT_EQ(again.describe(kNow), "user 'mario': a token this server has taken before (a replay)");
  // A fresh token of the same user passes; refused tokens are not kept.
  EXPECT_EQ(authorize_iperf3(make_iperf3_token({"mario", "rossi", kNow}, pk, kOaep), check, users,
                             kNow + 1)
                .verdict,
            Iperf3Verdict::kAuthorized);
  EXPECT_EQ(
      authorize_iperf3(make_iperf3_token({"mario", "bad", kNow}, pk, kOaep), check, users, kNow)
          .verdict,
      Iperf3Verdict::kWrongPassword);
  EXPECT_EQ(cache.size(), 2u);
  // Out of the window the clock refuses it, and the cache lets it go (at
  // the next token it takes).
  EXPECT_EQ(authorize_iperf3(token, check, users, kNow + 11).verdict, Iperf3Verdict::kTimeSkew);
  EXPECT_EQ(authorize_iperf3(make_iperf3_token({"mario", "rossi", kNow + 11}, pk, kOaep), check,
                             users, kNow + 11)
                .verdict,
            Iperf3Verdict::kAuthorized);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(ReplayCache, KeepsTokensUntilTheirTimeAndMakesRoomWhenFull) {
  Iperf3ReplayCache cache(3);
  EXPECT_TRUE(cache.first_use("a", 100, 50));
  EXPECT_FALSE(cache.first_use("a", 100, 60));
  EXPECT_TRUE(cache.first_use("b", 90, 60));
  EXPECT_TRUE(cache.first_use("c", 120, 60));
  EXPECT_EQ(cache.size(), 3u);
  // Full: the one due to leave first ("b") makes room for "d".
  EXPECT_TRUE(cache.first_use("d", 130, 60));
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_FALSE(cache.first_use("a", 100, 61));
  EXPECT_TRUE(cache.first_use("b", 95, 62));  // "c" (120) stays; "a" (100) made room
  EXPECT_FALSE(cache.first_use("c", 120, 62));
  // Past their times, all leave.
  EXPECT_TRUE(cache.first_use("e", 200, 150));
  EXPECT_EQ(cache.size(), 1u);
}

}  // namespace
}  // namespace flowperf::auth
