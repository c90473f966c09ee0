package io.presplit.hbase.admin;

import java.io.File;
import java.io.IOException;
import java.security.AccessController;
import java.security.PrivilegedAction;
import java.util.LinkedHashSet;
import java.util.Set;

import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosPrincipal;
import javax.security.auth.kerberos.KerberosTicket;
import javax.security.auth.kerberos.KeyTab;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The Kerberos login of a JVM that talks to a Kerberized HBase: presplitd's embedded JVM (through
 * JNI, before {@link AdminBridge#connect}) and {@code presplitctl import}'s {@code java}.
 *
 * <p>{@code presplitctl import} passes the principal and the keytab as the system properties
 * {@value #PRINCIPAL_PROPERTY} and {@value #KEYTAB_PROPERTY}; {@link #loginFromProperties} logs in
 * with them.
 *
 * <p>{@link #login} sets Hadoop's {@code UserGroupInformation} to Kerberos and logs the process in
 * from a keytab: every HBase connection, bulk load and MapReduce job of the JVM then runs as that
 * principal. {@link #checkAndRelogin} logs in again from the keytab once the ticket-granting
 * ticket has passed 80 % of its lifetime (Hadoop's {@code checkTGTAndReloginFromKeytab});
 * presplitd calls it periodically. Both return the ticket as JSON:
 *
 * <pre>{@code
 * {"principal":"presplit/host@REALM","start_ms":...,"end_ms":...,"refresh_ms":...,
 *  "now_ms":...,"relogged":false}
 * }</pre>
 *
 * <p>Failures are an {@link IOException} whose message is one line: {@code Kerberos login as
 * <principal> from keytab <path> failed: <reason>}, the reason being what the KDC or Java's
 * Kerberos said ({@code Pre-authentication information was invalid (24)}, {@code Client not found
 * in Kerberos database (6)}, {@code Cannot contact any KDC for realm ...}) or what is wrong with the
 * keytab. How long an unreachable KDC can hold a login is bounded by krb5.conf's
 * {@code kdc_timeout} and {@code max_retries}.
 */
public final class KerberosLogin {

  /** Hadoop's rule (UserGroupInformation.TICKET_RENEW_WINDOW): renew at 80 % of the lifetime. */
  static final double RENEW_WINDOW = 0.80;

  /** System property naming the principal of {@link #loginFromProperties}. */
  public static final String PRINCIPAL_PROPERTY = "presplit.kerberos.principal";

  /** System property naming the keytab of {@link #loginFromProperties}. */
  public static final String KEYTAB_PROPERTY = "presplit.kerberos.keytab";

  private static String principal;
  private static String keytab;

  /**
   * Logs in with {@code conf} when the system property {@value #PRINCIPAL_PROPERTY} is set (from
   * the keytab {@value #KEYTAB_PROPERTY} names); does nothing otherwise.
   *
   * @return whether it logged in
   */
  public static boolean loginFromProperties(Configuration conf) throws IOException {
    String who = System.getProperty(PRINCIPAL_PROPERTY, "");
    if (who.isEmpty()) {
      return false;
    }
    login(who, System.getProperty(KEYTAB_PROPERTY, ""), conf);
    return true;
  }

  private KerberosLogin() {}

  /**
   * Logs this JVM in as {@code principalConfig} from {@code keytabPath}.
   *
   * @param principalConfig {@code primary[/instance][@REALM]}; {@code _HOST} stands for this
   *     host's canonical name, as in Hadoop's server principals
   * @param keytabPath the keytab holding the principal's keys
   * @param confPairs alternating key, value applied over {@code HBaseConfiguration.create()}, as
   *     for {@link AdminBridge#connect} (e.g. {@code hadoop.kerberos.min.seconds.before.relogin})
   * @return the ticket as JSON (see the class comment)
   * @throws IOException naming the principal, the keytab and the reason
   */
  public static String login(String principalConfig, String keytabPath, String[] confPairs)
      throws IOException {
    return login(principalConfig, keytabPath, AdminBridge.configuration(confPairs));
  }

  /**
   * {@link #login(String, String, String[])} with a configuration of the caller's (a bulk job's),
   * which this sets to Kerberos.
   */
  public static synchronized String login(String principalConfig, String keytabPath,
      Configuration conf) throws IOException {
    conf.set("hadoop.security.authentication", "kerberos");
    // checkAndRelogin renews (called by presplitd's worker, which reports on it); Hadoop's own
    // renewal thread would do it out of sight.
    conf.setBoolean("hadoop.kerberos.keytab.login.autorenewal.enabled", false);
    if (conf.get("hbase.security.authentication") == null) {
      conf.set("hbase.security.authentication", "kerberos");
    }
    String resolved = principalConfig;
    try {
      resolved = SecurityUtil.getServerPrincipal(principalConfig, (String) null);
    } catch (IOException e) {
      throw failure(principalConfig, keytabPath, e);
    }
    checkKeytab(resolved, keytabPath);
    UserGroupInformation.setConfiguration(conf);
    try {
      UserGroupInformation.loginUserFromKeytab(resolved, keytabPath);
    } catch (IOException | RuntimeException e) {
      throw failure(resolved, keytabPath, e);
    }
    principal = resolved;
    keytab = keytabPath;
    return ticketJson(UserGroupInformation.getLoginUser(), false);
  }

  /**
   * Logs in again from the keytab when the ticket has passed 80 % of its lifetime (and the last
   * login is older than {@code hadoop.kerberos.min.seconds.before.relogin}, 60 s by default).
   *
   * @return the ticket as JSON; {@code relogged} says whether a new ticket was obtained
   * @throws IOException naming the principal, the keytab and the reason
   * @throws IllegalStateException before a successful {@link #login}
   */
  public static synchronized String checkAndRelogin() throws IOException {
    if (principal == null) {
      throw new IllegalStateException("no Kerberos login yet: call login first");
    }
    UserGroupInformation ugi = UserGroupInformation.getLoginUser();
    KerberosTicket before = tgt(subjectOf(ugi));
    try {
      ugi.checkTGTAndReloginFromKeytab();
    } catch (IOException | RuntimeException e) {
      throw failure(principal, keytab, e);
    }
    KerberosTicket after = tgt(subjectOf(ugi));
    boolean relogged = after != null && (before == null
        || !after.getEndTime().equals(before.getEndTime())
        || !after.getStartTime().equals(before.getStartTime()));
    return ticketJson(ugi, relogged);
  }

  /** Whether {@link #login} has succeeded in this JVM. */
  public static synchronized boolean loggedIn() {
    return principal != null;
  }

  /** A keytab problem said before any KDC is asked. */
  private static void checkKeytab(String resolved, String keytabPath) throws IOException {
    File file = new File(keytabPath);
    if (!file.isFile()) {
      throw new IOException(prefix(resolved, keytabPath) + "the keytab does not exist");
    }
    if (!file.canRead()) {
      throw new IOException(prefix(resolved, keytabPath) + "the keytab is not readable by user "
          + System.getProperty("user.name"));
    }
    KerberosPrincipal kp;
    try {
      kp = new KerberosPrincipal(resolved);
    } catch (IllegalArgumentException e) {
      // no realm in the name and none in krb5.conf (or no krb5.conf at all)
      throw new IOException(prefix(resolved, keytabPath) + reason(e)
          + " (is krb5.conf found? java.security.krb5.conf, else /etc/krb5.conf)", e);
    }
    if (KeyTab.getInstance(file).getKeys(kp).length == 0) {
      throw new IOException(prefix(resolved, keytabPath) + "the keytab holds no key for "
          + kp.getName() + " (or is not a keytab)");
    }
  }

  private static String prefix(String who, String keytabPath) {
    return "Kerberos login as " + who + " from keytab " + keytabPath + " failed: ";
  }

  private static IOException failure(String who, String keytabPath, Throwable e) {
    return new IOException(prefix(who, keytabPath) + reason(e), e);
  }

  /**
   * What went wrong, one line: the distinct messages of the cause chain, outermost first, without
   * Hadoop's wrappers ("failure to login: for principal: ... from keytab ...", older Hadoops'
   * "Login failure for user"), which repeat the principal, the keytab and the rest.
   */
  static String reason(Throwable e) {
    Set<String> parts = new LinkedHashSet<>();
    Throwable t = e;
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      String message = t.getMessage();
      if (message == null || message.isBlank() || message.startsWith("Login failure for user")
          || message.startsWith("failure to login")) {
        continue;
      }
      int nl = message.indexOf('\n');
      message = (nl < 0 ? message : message.substring(0, nl)).trim();
      boolean known = false;
      for (String part : parts) {
        known = known || part.contains(message);
      }
      if (!known) {
        parts.add(message);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    if (parts.isEmpty()) {
      return e.getClass().getName();
    }
    return String.join(": ", parts);
  }

  /** The login user's Subject (UserGroupInformation keeps its getter protected). */
  @SuppressWarnings("removal") // Subject.getSubject: Java 17's way; Subject.current() is 18+
  private static Subject subjectOf(UserGroupInformation ugi) {
    return ugi.doAs((PrivilegedAction<Subject>) () ->
        Subject.getSubject(AccessController.getContext()));
  }

  /** The ticket-granting ticket of the subject with the latest end, or null. */
  static KerberosTicket tgt(Subject subject) {
    if (subject == null) {
      return null;
    }
    KerberosTicket best = null;
    for (KerberosTicket t : subject.getPrivateCredentials(KerberosTicket.class)) {
      KerberosPrincipal server = t.getServer();
      if (server == null || !server.getName().startsWith("krbtgt/")) {
        continue;
      }
      if (best == null || t.getEndTime().after(best.getEndTime())) {
        best = t;
      }
    }
    return best;
  }

  private static String ticketJson(UserGroupInformation ugi, boolean relogged) {
    KerberosTicket t = tgt(subjectOf(ugi));
    long start = t == null ? 0 : t.getStartTime() == null
        ? t.getAuthTime().getTime() : t.getStartTime().getTime();
    long end = t == null ? 0 : t.getEndTime().getTime();
    long refresh = start + (long) ((end - start) * RENEW_WINDOW);
    return "{\"principal\":" + JsonText.quote(ugi.getUserName()) + ",\"start_ms\":" + start
        + ",\"end_ms\":" + end + ",\"refresh_ms\":" + refresh + ",\"now_ms\":"
        + System.currentTimeMillis() + ",\"relogged\":" + relogged + "}";
  }
}
