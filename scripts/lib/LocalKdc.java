// A Kerberos KDC for scripts/local-cluster --kerberos (started by scripts/lib/local-kdc): Apache
// Kerby's SimpleKdcServer on one TCP port of 127.0.0.1, its principals kept in memory.
//
//   java -cp KDC_CLASSPATH:CLASSES LocalKdc DIR REALM PORT LIFETIME_S PRINCIPAL=KEYTAB...
//
// Every principal gets keys derived from a password made of DIR/secret (created once, 0600) and
// its name, so a KDC restarted on the same DIR hands out the same keys and the keytabs the HBase
// servers hold stay valid. Each PRINCIPAL's keys are written to KEYTAB (a path under DIR; several
// principals may share one). A PRINCIPAL written as "stale:NAME" is exported, then given new
// keys: its keytab is out of date, and a login from it fails at the KDC (for tests).
//
// LIFETIME_S is the longest ticket the KDC issues, for every principal (Java 17 asks for no
// shorter one): tests renew tickets of a minute or two. Writes DIR/krb5.conf (TCP only, short
// timeouts, no DNS), then DIR/ready, and serves until SIGTERM. Progress goes to stderr.

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kerby.kerberos.kerb.KrbException;
import org.apache.kerby.kerberos.kerb.client.KrbConfig;
import org.apache.kerby.kerberos.kerb.server.KdcConfigKey;
import org.apache.kerby.kerberos.kerb.server.SimpleKdcServer;

public final class LocalKdc {
  private LocalKdc() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: LocalKdc DIR REALM PORT LIFETIME_S PRINCIPAL=KEYTAB...");
      System.exit(2);
    }
    Path dir = Path.of(args[0]).toAbsolutePath();
    String realm = args[1];
    int port = Integer.parseInt(args[2]);
    long lifetime = Long.parseLong(args[3]);
    Map<String, Path> principals = new LinkedHashMap<>();
    List<String> stale = new ArrayList<>();
    for (int i = 4; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq <= 0) {
        System.err.println("LocalKdc: expected PRINCIPAL=KEYTAB, got " + args[i]);
        System.exit(2);
      }
      String name = args[i].substring(0, eq);
      if (name.startsWith("stale:")) {
        name = name.substring("stale:".length());
        stale.add(qualified(name, realm));
      }
      principals.put(qualified(name, realm), dir.resolve(args[i].substring(eq + 1)));
    }
    String secret = secret(dir.resolve("secret"));
    Files.deleteIfExists(dir.resolve("ready"));

    SimpleKdcServer kdc = new SimpleKdcServer(new KrbConfig());
    File work = dir.resolve("work").toFile();
    Files.createDirectories(work.toPath());
    kdc.setWorkDir(work);
    kdc.setKdcRealm(realm);
    kdc.setKdcHost("127.0.0.1");
    kdc.setAllowUdp(false);
    kdc.setKdcTcpPort(port);
    kdc.getKdcConfig().setLong(KdcConfigKey.MAXIMUM_TICKET_LIFETIME, lifetime);
    kdc.getKdcConfig().setLong(KdcConfigKey.MINIMUM_TICKET_LIFETIME, 1L);
    kdc.getKdcConfig().setLong(KdcConfigKey.MAXIMUM_RENEWABLE_LIFETIME, Math.max(lifetime, 3600L));
    kdc.init();

    for (Path keytab : principals.values()) {
      Files.createDirectories(keytab.getParent());
      Files.deleteIfExists(keytab);
    }
    for (Map.Entry<String, Path> p : principals.entrySet()) {
      kdc.createPrincipal(p.getKey(), password(secret, p.getKey()));
      kdc.exportPrincipal(p.getKey(), p.getValue().toFile());
      Files.setPosixFilePermissions(p.getValue(), PosixFilePermissions.fromString("rw-------"));
    }
    for (String name : stale) {
      kdc.getKadmin().changePassword(name, password(secret, name) + "-rotated");
    }
    kdc.start();

    writeAtomically(dir.resolve("krb5.conf"), krb5Conf(realm, port));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        kdc.stop();
      } catch (KrbException | RuntimeException e) {
        System.err.println("LocalKdc: stop: " + e);
      }
      stopped.countDown();
    }));
    writeAtomically(dir.resolve("ready"), "127.0.0.1:" + port + "\n");
    System.err.println("LocalKdc: realm " + realm + " on 127.0.0.1:" + port + " (TCP), tickets of "
        + lifetime + " s, " + principals.size() + " principals");
    stopped.await();
  }

  private static String qualified(String name, String realm) {
    return name.contains("@") ? name : name + "@" + realm;
  }

  private static String password(String secret, String principal) {
    return secret + ":" + principal;
  }

  /** The secret the passwords derive from: created once, kept across restarts. */
  private static String secret(Path file) throws IOException {
    if (Files.exists(file)) {
      return Files.readString(file, StandardCharsets.UTF_8).trim();
    }
    byte[] bytes = new byte[24];
    new SecureRandom().nextBytes(bytes);
    String secret = HexFormat.of().formatHex(bytes);
    Files.createDirectories(file.getParent());
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, secret + "\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    return secret;
  }

  /**
   * The clients' krb5.conf: TCP only (udp_preference_limit = 1), a 3 s KDC timeout and 2 tries
   * (Java's defaults are 30 s and 3), no DNS lookups or canonicalisation, so that a KDC that is
   * down is a quick, clear error.
   */
  static String krb5Conf(String realm, int port) {
    return "# Generated by scripts/lib/local-kdc at every start; edits are lost.\n"
        + "[libdefaults]\n"
        + "  default_realm = " + realm + "\n"
        + "  dns_lookup_kdc = false\n"
        + "  dns_lookup_realm = false\n"
        + "  dns_canonicalize_hostname = false\n"
        + "  rdns = false\n"
        + "  udp_preference_limit = 1\n"
        + "  kdc_timeout = 3000\n"
        + "  max_retries = 2\n"
        + "  forwardable = true\n"
        + "\n"
        + "[realms]\n"
        + "  " + realm + " = {\n"
        + "    kdc = 127.0.0.1:" + port + "\n"
        + "  }\n"
        + "\n"
        + "[domain_realm]\n"
        + "  localhost = " + realm + "\n"
        + "  127.0.0.1 = " + realm + "\n";
  }

  private static void writeAtomically(Path file, String text) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
