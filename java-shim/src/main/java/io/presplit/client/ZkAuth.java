package io.presplit.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper identity the SDK reads presplit's znodes as, when presplit's access control
 * names its readers: digest credentials, from a user and password or from presplit's
 * credentials file ({@code key = value} lines, the same format presplitd's {@code zk_auth_file}
 * and {@code presplitctl --auth-file} read; the SDK only uses {@code scheme} and
 * {@code identity = user:password}, it creates no znode so the ACL lines are accepted and
 * ignored). The password is never part of a message, a log line or {@link #toString()}.
 */
final class ZkAuth {

  private static final Logger LOG = LoggerFactory.getLogger(ZkAuth.class);
  private static final Set<String> KEYS = Set.of("scheme", "identity", "portal", "daemon",
      "readers");

  final String scheme;
  final String user;
  private final byte[] secret; // "user:password"

  private ZkAuth(String scheme, String user, byte[] secret) {
    this.scheme = scheme;
    this.user = user;
    this.secret = secret;
  }

  static ZkAuth digest(String user, String password) {
    if (user == null || user.isEmpty() || user.indexOf(':') >= 0) {
      throw new IllegalArgumentException("ZooKeeper digest user must be non-empty, without ':'");
    }
    if (password == null || password.isEmpty()) {
      throw new IllegalArgumentException("ZooKeeper digest password of " + user + " is empty");
    }
    return new ZkAuth("digest", user, (user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** Reads a credentials file; warns when its group or others may read it. */
  static ZkAuth fromFile(Path file) throws IOException {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new PresplitConfigException("cannot read ZooKeeper credentials file " + file + ": "
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

  /** Parses the file's text; {@code origin} names it in errors. */
  static ZkAuth parse(String text, String origin) throws PresplitConfigException {
    String scheme = null;
    String identity = null;
    Set<String> seen = new HashSet<>();
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
        throw new PresplitConfigException(where + ": expected key = value");
      }
      String key = line.substring(0, eq).strip();
      String value = line.substring(eq + 1).strip();
      if (!KEYS.contains(key)) {
        throw new PresplitConfigException(where + ": unknown key '" + key
            + "' (scheme, identity, portal, daemon, readers)");
      }
      if (!seen.add(key)) {
        throw new PresplitConfigException(where + ": " + key + " given twice");
      }
      if (key.equals("scheme")) {
        scheme = value;
      } else if (key.equals("identity")) {
        identity = value;
      }
    }
    if (scheme != null && !scheme.equals("digest")) {
      throw new PresplitConfigException(origin + ": scheme '" + scheme + "' is not supported by"
          + " the credentials file (digest only; SASL is configured through the ZooKeeper"
          + " client's JAAS settings instead)");
    }
    if (identity == null) {
      throw new PresplitConfigException(origin + ": missing identity");
    }
    int colon = identity.indexOf(':');
    if (colon <= 0 || colon == identity.length() - 1) {
      throw new PresplitConfigException(origin + ": identity: expected user:password");
    }
    return new ZkAuth("digest", identity.substring(0, colon),
        identity.getBytes(StandardCharsets.UTF_8));
  }

  /** Adds the credentials to a session; the client re-sends them when it reconnects. */
  void addTo(ZooKeeper zk) {
    zk.addAuthInfo(scheme, secret.clone());
  }

  /** The credentials as ZooKeeper receives them, for tests. */
  byte[] secretForTest() {
    return secret.clone();
  }

  @Override
  public String toString() {
    return scheme + ":" + user;
  }
}
