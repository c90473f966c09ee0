#include "daemon/hbase/kerberos_state.h"

#include <gtest/gtest.h>

namespace presplit::daemon {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int64_t kStart = 1'800'000'000'000;  // ms since the epoch

KerberosTicket Ticket(int64_t start_ms, int64_t lifetime_ms, bool relogged = false) {
  KerberosTicket t;
  t.principal = "presplit/host.example.com@EXAMPLE.COM";
  t.start_ms = start_ms;
  t.end_ms = start_ms + lifetime_ms;
  t.refresh_ms = start_ms + lifetime_ms * 8 / 10;
  t.now_ms = start_ms;
  t.relogged = relogged;
  return t;
}

TEST(KerberosStateTest, ParsesTheJavaSidesTicket) {
  auto t = ParseKerberosTicket(
      R"({"principal":"presplit/h@R","start_ms":1000,"end_ms":91000,"refresh_ms":73000,)"
      R"("now_ms":2000,"relogged":true})");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->principal, "presplit/h@R");
  EXPECT_EQ(t->start_ms, 1000);
  EXPECT_EQ(t->end_ms, 91000);
  EXPECT_EQ(t->refresh_ms, 73000);
  EXPECT_EQ(t->now_ms, 2000);
  EXPECT_TRUE(t->relogged);
  EXPECT_EQ(ParseKerberosTicket("{}").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseKerberosTicket("not json").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(UtcFromMillis(0), "1970-01-01T00:00:00Z");
}

TEST(KerberosStateTest, UnhealthyUntilTheFirstLogin) {
  KerberosLoginState state("presplit@EXAMPLE.COM", "/etc/presplit/presplit.keytab");
  EXPECT_FALSE(state.logged_in());
  EXPECT_EQ(state.Problem(kStart),
            "Kerberos: logging in as presplit@EXAMPLE.COM from keytab "
            "/etc/presplit/presplit.keytab");
  EXPECT_EQ(state.ticket_end_ms(), 0);
  state.Succeeded(Ticket(kStart, 3'600'000));
  EXPECT_TRUE(state.logged_in());
  EXPECT_EQ(state.Problem(kStart), "");
  EXPECT_EQ(state.logins(), 1u);
  EXPECT_EQ(state.ticket_end_ms(), kStart + 3'600'000);
}

TEST(KerberosStateTest, AFailedLoginNamesPrincipalAndReasonAndIsRetried) {
  KerberosLoginState state("presplit@EXAMPLE.COM", "/k.keytab");
  const std::string why =
      "Kerberos login as presplit@EXAMPLE.COM from keytab /k.keytab failed: "
      "Pre-authentication information was invalid (24)";
  state.Failed(why);
  EXPECT_FALSE(state.logged_in());
  EXPECT_EQ(state.Problem(kStart), why + " (no ticket)");
  EXPECT_EQ(state.failures(), 1u);
  EXPECT_EQ(state.NextCheck(kStart), KerberosLoginState::kRetryAfterFailure);
  state.Failed("");
  EXPECT_NE(state.Problem(kStart).find("presplit@EXAMPLE.COM"), std::string::npos);
  state.Succeeded(Ticket(kStart, 3'600'000));
  EXPECT_EQ(state.Problem(kStart), "") << "a success clears the failure";
  EXPECT_EQ(state.failures(), 2u);
}

TEST(KerberosStateTest, AFailedRenewalSaysWhatIsLeftOfTheTicket) {
  KerberosLoginState state("presplit@EXAMPLE.COM", "/k.keytab");
  state.Succeeded(Ticket(kStart, 100'000));
  state.Failed("Kerberos login as presplit@EXAMPLE.COM from keytab /k.keytab failed: down");
  EXPECT_TRUE(state.logged_in()) << "the connections keep their ticket";
  EXPECT_NE(state.Problem(kStart + 90'000).find("the current ticket is valid until"),
            std::string::npos)
      << state.Problem(kStart + 90'000);
  EXPECT_NE(state.Problem(kStart + 100'000).find("the last ticket expired at"), std::string::npos)
      << state.Problem(kStart + 100'000);
}

TEST(KerberosStateTest, ChecksJustAfterTheRefreshTime) {
  KerberosLoginState state("p@R", "/k");
  // A ticket of 90 s: renewed from 72 s on; the worker looks at 73 s.
  state.Succeeded(Ticket(kStart, 90'000));
  EXPECT_EQ(state.NextCheck(kStart), milliseconds(60'000)) << "at most a minute ahead";
  EXPECT_EQ(state.NextCheck(kStart + 70'000), milliseconds(3'000));
  // Past the refresh time with the same ticket (Hadoop allows one login a minute): soon again.
  EXPECT_EQ(state.NextCheck(kStart + 80'000), milliseconds(5'000));
  // A day's ticket: looked at every minute, which asks no KDC.
  KerberosLoginState day("p@R", "/k");
  day.Succeeded(Ticket(kStart, 86'400'000));
  EXPECT_EQ(day.NextCheck(kStart), KerberosLoginState::kMaxCheckInterval);
}

TEST(KerberosStateTest, EachNewTicketCountsAsALogin) {
  KerberosLoginState state("p@R", "/k");
  state.Succeeded(Ticket(kStart, 90'000));
  state.Succeeded(Ticket(kStart, 90'000));  // a check that was not due
  EXPECT_EQ(state.logins(), 1u);
  state.Succeeded(Ticket(kStart + 73'000, 90'000, /*relogged=*/true));
  EXPECT_EQ(state.logins(), 2u);
  // HBase's client renewed it meanwhile: the check sees a ticket it did not get itself.
  state.Succeeded(Ticket(kStart + 150'000, 90'000, /*relogged=*/false));
  EXPECT_EQ(state.logins(), 3u);
  EXPECT_EQ(state.ticket_end_ms(), kStart + 240'000);
}

}  // namespace
}  // namespace presplit::daemon
