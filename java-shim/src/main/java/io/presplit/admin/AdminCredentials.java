package io.presplit.admin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

import io.presplit.client.CredentialsFile;
import io.presplit.client.PresplitConfigException;

import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

/**
 * The identity a {@link PresplitAdmin} authenticates as and the ACLs of the znodes it creates:
 * presplit's credentials file ({@link CredentialsFile}, the rules of presplitctl's
 * {@code --auth-file}), or a digest user and password alone. The
 * password is never part of a message or {@link #toString()}.
 */
final class AdminCredentials {
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
    try {
      return of(CredentialsFile.read(file));
    } catch (PresplitConfigException e) {
      throw new PresplitAdminException(e.getMessage(), e);
    }
  }

  /** The file's text, by presplitctl's rules; {@code origin} names it in errors. */
  static AdminCredentials parse(String text, String origin) throws PresplitAdminException {
    try {
      return of(CredentialsFile.parse(text, origin));
    } catch (PresplitConfigException e) {
      throw new PresplitAdminException(e.getMessage(), e);
    }
  }

  // An admin creates znodes, so the file must name the ACLs' identities too.
  private static AdminCredentials of(CredentialsFile file) throws PresplitAdminException {
    String origin = file.origin();
    for (String required : List.of("portal", "daemon")) {
      String value = file.get(required);
      if (value == null || value.isEmpty()) {
        throw new PresplitAdminException(origin + ": missing " + required);
      }
    }
    String user = file.user();
    String password = file.password();
    String portal = digestId(origin, "portal", file.get("portal"), user, password);
    String daemon = digestId(origin, "daemon", file.get("daemon"), user, password);
    List<String> readers = new ArrayList<>();
    String readersValue = file.get("readers") == null ? "world" : file.get("readers");
    if (!readersValue.equals("world")) {
      for (String item : readersValue.split(",", -1)) {
        readers.add(digestId(origin, "readers", item.strip(), user, password));
      }
    }
    return new AdminCredentials(user, file.secret(), portal, daemon, List.copyOf(readers));
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
