package io.presplit.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;


/**
 * The ZooKeeper identity the SDK reads presplit's znodes as, when presplit's access control
 * names its readers: digest credentials, from a user and password or from presplit's
 * credentials file ({@link CredentialsFile}; the SDK only uses its identity). The password is never part of a message, a log line or {@link #toString()}.
 */
final class ZkAuth {

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

  /** Reads a credentials file (CredentialsFile's rules); warns when others may read it. */
  static ZkAuth fromFile(Path file) throws IOException {
    return of(CredentialsFile.read(file));
  }

  /** Parses the file's text; {@code origin} names it in errors. */
  static ZkAuth parse(String text, String origin) throws PresplitConfigException {
    return of(CredentialsFile.parse(text, origin));
  }

  // The SDK creates no znode: the file's ACL identities are accepted and not used.
  private static ZkAuth of(CredentialsFile file) {
    return new ZkAuth("digest", file.user(), file.secret());
  }

  /** The credentials as ZooKeeper's digest scheme receives them (ZkConnect adds them). */
  byte[] secret() {
    return secret.clone();
  }

  @Override
  public String toString() {
    return scheme + ":" + user;
  }
}
