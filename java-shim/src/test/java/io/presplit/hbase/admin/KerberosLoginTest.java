package io.presplit.hbase.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.security.auth.login.LoginException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What can be checked without a KDC; the logins themselves run in tests/e2e/test_kerberos.py. */
class KerberosLoginTest {

  @Test
  void reasonIsTheCauseChainInOneLineWithoutHadoopsWrapper() {
    LoginException kdc = new LoginException("Pre-authentication information was invalid (24)");
    IOException hadoop = new IOException("Login failure for user: p@R from keytab /k "
        + "javax.security.auth.login.LoginException: Pre-authentication information was invalid "
        + "(24)", kdc);
    assertEquals("Pre-authentication information was invalid (24)", KerberosLogin.reason(hadoop));
    // Hadoop 3.4's KerberosAuthException, as a login from an out-of-date keytab gives it.
    LoginException stale = new LoginException("Integrity check on decrypted field failed (31) - "
        + "PREAUTH_FAILED");
    IOException hadoop34 = new IOException("failure to login: for principal: stale@R from keytab "
        + "/k/stale.keytab javax.security.auth.login.LoginException: Integrity check on decrypted "
        + "field failed (31) - PREAUTH_FAILED", stale);
    assertEquals("Integrity check on decrypted field failed (31) - PREAUTH_FAILED",
        KerberosLogin.reason(hadoop34));

    IOException nested = new IOException("Cannot contact any KDC for realm 'R'",
        new java.net.SocketTimeoutException("Receive timed out\n\tat somewhere"));
    assertEquals("Cannot contact any KDC for realm 'R': Receive timed out",
        KerberosLogin.reason(nested));
    assertEquals("java.io.IOException", KerberosLogin.reason(new IOException()));
  }

  @Test
  void aMissingKeytabIsNamedBeforeAnyKdcIsAsked(@TempDir Path dir) {
    String keytab = dir.resolve("absent.keytab").toString();
    IOException e = assertThrows(IOException.class,
        () -> KerberosLogin.login("presplit@EXAMPLE.COM", keytab, (String[]) null));
    assertEquals("Kerberos login as presplit@EXAMPLE.COM from keytab " + keytab
        + " failed: the keytab does not exist", e.getMessage());
    assertFalse(KerberosLogin.loggedIn());
  }

  @Test
  void aFileThatIsNoKeytabHoldsNoKey(@TempDir Path dir) throws IOException {
    Path keytab = Files.writeString(dir.resolve("junk.keytab"), "not a keytab");
    IOException e = assertThrows(IOException.class,
        () -> KerberosLogin.login("presplit@EXAMPLE.COM", keytab.toString(), (String[]) null));
    assertTrue(e.getMessage().startsWith("Kerberos login as presplit@EXAMPLE.COM from keytab "
        + keytab + " failed: the keytab holds no key for presplit@EXAMPLE.COM"), e.getMessage());
  }

  @Test
  void checkAndReloginNeedsALoginFirst() {
    assertThrows(IllegalStateException.class, KerberosLogin::checkAndRelogin);
  }
}
