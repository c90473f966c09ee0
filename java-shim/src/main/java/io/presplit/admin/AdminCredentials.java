package io.presplit.admin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The identity a {@link PresplitAdmin} authenticates as and the ACLs of the znodes it creates:
 * presplit's credentials file, read by the same rules as presplitctl's {@code --auth-file}
 * (daemon/zk/zk_auth.h; docs/high-availability.md), or a digest user and password alone. The
 * password is never part of a message or {@link #toString()}.
 */
final class AdminCredentials {
  private static final Logger LOG = LoggerFactory.getLogger(AdminCredentials.class);
  private static final Set<String> KEYS = Set.of("scheme", "identity", "portal", "daemon",
      "readers");
  private static final Pattern DIGEST = Pattern.compile("[A-Za-z0-9+/]{27}=");

  final String user;
  private final byte[] secret; // "user:password"
  // From a file: the digest ids the ACLs name. Null for a digest identity alone.
  private final String portal;
  private final String daemon;
  private final List<String> readers; // empty: world-readable

  private AdminCredentials(String user, byte[] secret, String portal, String daemon,
      List<String> readers) {
    this.user = user;
    this.secret = secret;
    this.portal = portal;
    this.daemon = daemon;
    this.readers = readers;
  }

  static AdminCredentials digest(String user, String password) {
    if (user == null || user.isEmpty() || user.indexOf(':') >= 0) {
      throw new IllegalArgumentException("ZooKeeper digest user must be non-empty, without ':'");
    }
    if (password == null || password.isEmpty()) {
      throw new IllegalArgumentException("ZooKeeper digest password of " + user + " is empty");
    }
    return new AdminCredentials(user, (user + ":" + password).getBytes(StandardCharsets.UTF_8),
        null, null, List.of());
  }

  static AdminCredentials fromFile(Path file) throws IOException {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new PresplitAdminException("cannot read ZooKeeper credentials file " + file + ": "
          + e.getMessage(), e);
    }
    try {
      Set<PosixFilePermission> open = new HashSet<>(Files.getPosixFilePermissions(file));
      open.retainAll(EnumSet.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE));
      if (!open.isEmpty()) {
        LOG.warn("presplit: ZooKeeper credentials file {} is accessible to its group or others;"
            + " make it readable by its owner only: chmod 600 {}", file, file);
      }
    } catch (UnsupportedOperationException | IOException e) {
      // Not a POSIX file system: nothing to check.
    }
    return parse(text, file.toString());
  }

  /** The file's text, by presplitctl's rules; {@code origin} names it in errors. */
  static AdminCredentials parse(String text, String origin) throws PresplitAdminException {
    Map<String, String> values = new HashMap<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      int hash = line.indexOf('#');
      if (hash >= 0) {
        line = line.substring(0, hash);
      }
      line = line.strip();
      if (line.isEmpty()) {
        continue;
      }
      String where = origin + " line " + (i + 1);
      int eq = line.indexOf('=');
      if (eq < 0) {
        throw new PresplitAdminException(where + ": expected key = value");
      }
      String key = line.substring(0, eq).strip();
      if (!KEYS.contains(key)) {
        throw new PresplitAdminException(where + ": unknown key '" + key
            + "' (scheme, identity, portal, daemon, readers)");
      }
      if (values.put(key, line.substring(eq + 1).strip()) != null) {
        throw new PresplitAdminException(where + ": " + key + " given twice");
      }
    }
    String scheme = values.getOrDefault("scheme", "digest");
    if (!scheme.equals("digest")) {
      throw new PresplitAdminException(origin + ": scheme '" + scheme + "' is not supported"
          + " (digest only)");
    }
    for (String required : List.of("identity", "portal", "daemon")) {
      if (values.getOrDefault(required, "").isEmpty()) {
        throw new PresplitAdminException(origin + ": missing " + required);
      }
    }
    String identity = values.get("identity");
    int colon = identity.indexOf(':');
    if (colon <= 0 || colon == identity.length() - 1) {
      throw new PresplitAdminException(origin + ": identity: expected user:password");
    }
    String user = identity.substring(0, colon);
    String password = identity.substring(colon + 1);
    String portal = digestId(origin, "portal", values.get("portal"), user, password);
    String daemon = digestId(origin, "daemon", values.get("daemon"), user, password);
    List<String> readers = new ArrayList<>();
    String readersValue = values.getOrDefault("readers", "world");
    if (!readersValue.equals("world")) {
      for (String item : readersValue.split(",", -1)) {
        readers.add(digestId(origin, "readers", item.strip(), user, password));
      }
    }
    return new AdminCredentials(user, identity.getBytes(StandardCharsets.UTF_8), portal, daemon,
        List.copyOf(readers));
  }

  /** One ACL identity of the file: this identity's own user name, or {@code user:DIGEST}. */
  private static String digestId(String origin, String key, String value, String user,
      String password) throws PresplitAdminException {
    int colon = value.indexOf(':');
    if (colon < 0) {
      if (value.isEmpty()) {
        throw new PresplitAdminException(origin + ": " + key + ": empty identity");
      }
      if (!value.equals(user)) {
        throw new PresplitAdminException(origin + ": " + key + ": user '" + value
            + "' is not this file's identity; give it in hashed form user:DIGEST (presplitctl"
            + " zk-digest prints it)");
      }
      return value + ":" + digest(value + ":" + password);
    }
    String other = value.substring(0, colon);
    if (other.isEmpty()) {
      throw new PresplitAdminException(origin + ": " + key + ": empty user name");
    }
    if (!DIGEST.matcher(value.substring(colon + 1)).matches()) {
      throw new PresplitAdminException(origin + ": " + key + ": the identity of '" + other
          + "' is not a digest (base64 of SHA-1, 28 characters ending in '='); presplitctl"
          + " zk-digest user:password prints it");
    }
    return value;
  }

  /** base64(sha1("user:password")), ZooKeeper's DigestAuthenticationProvider's digest. */
  static String digest(String userColonPassword) {
    try {
      byte[] sha1 = MessageDigest.getInstance("SHA-1")
          .digest(userColonPassword.getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(sha1);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is not available", e);
    }
  }

  byte[] secret() {
    return secret.clone();
  }

  /** Whether the ACLs are known (a credentials file), not just the identity. */
  boolean knowsAcls() {
    return portal != null;
  }

  /** {@code owner} may do everything; the other of portal/daemon and the readers may read. */
  private List<ACL> owned(String owner) {
    List<ACL> acl = new ArrayList<>();
    add(acl, "digest", owner, Perms.ALL);
    add(acl, "digest", portal, Perms.READ);
    add(acl, "digest", daemon, Perms.READ);
    if (readers.isEmpty()) {
      add(acl, "world", "anyone", Perms.READ);
    } else {
      for (String reader : readers) {
        add(acl, "digest", reader, Perms.READ);
      }
    }
    return acl;
  }

  static void add(List<ACL> acl, String scheme, String id, int perms) {
    for (int i = 0; i < acl.size(); i++) {
      ACL entry = acl.get(i);
      if (entry.getId().getScheme().equals(scheme) && entry.getId().getId().equals(id)) {
        acl.set(i, new ACL(entry.getPerms() | perms, entry.getId()));
        return;
      }
    }
    acl.add(new ACL(perms, new Id(scheme, id)));
  }

  // The ACLs of presplitctl (daemon/zk/zk_auth.cc BuildZkAcls), for the znodes an admin creates.
  List<ACL> rootAcl() {
    List<ACL> acl = owned(daemon);
    add(acl, "digest", portal, Perms.CREATE);
    return acl;
  }

  List<ACL> tablesAcl() {
    return owned(portal);
  }

  List<ACL> documentAcl() {
    return owned(portal);
  }

  List<ACL> requestsAcl() {
    List<ACL> acl = owned(daemon);
    add(acl, "digest", portal, Perms.CREATE | Perms.DELETE);
    return acl;
  }

  List<ACL> requestAcl() {
    List<ACL> acl = owned(daemon);
    add(acl, "digest", portal, Perms.WRITE);
    return acl;
  }

  /** This identity's digest id, {@code user:base64digest}. */
  String id() {
    return user + ":" + digest(new String(secret, StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return "digest:" + user;
  }
}
