package io.presplit.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * presplit's ZooKeeper credentials file, read by the rules presplitd's {@code zk_auth_file} and
 * {@code presplitctl --auth-file} follow (docs/high-availability.md): {@code key = value} lines,
 * {@code #} comments, the keys {@code scheme} (digest, the default), {@code identity}
 * ({@code user:password}, required), {@code portal}, {@code daemon} and {@code readers} (the ACL
 * identities), each at most once. The one reader of the file's syntax for the SDK (which uses the
 * identity only) and for {@code io.presplit.admin} (which also builds the ACLs from it). The
 * password is never part of a message or {@link #toString()}.
 */
public final class CredentialsFile {

  private static final Logger LOG = LoggerFactory.getLogger(CredentialsFile.class);
  private static final Set<String> KEYS = Set.of("scheme", "identity", "portal", "daemon",
      "readers");

  private final String origin;
  private final Map<String, String> values;
  private final String user;
  private final String password;

  private CredentialsFile(String origin, Map<String, String> values, String user,
      String password) {
    this.origin = origin;
    this.values = values;
    this.user = user;
    this.password = password;
  }

  /** Reads the file; warns when its group or others may read or write it. */
  public static CredentialsFile read(Path file) throws PresplitConfigException {
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
  public static CredentialsFile parse(String text, String origin) throws PresplitConfigException {
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
        throw new PresplitConfigException(where + ": expected key = value");
      }
      String key = line.substring(0, eq).strip();
      if (!KEYS.contains(key)) {
        throw new PresplitConfigException(where + ": unknown key '" + key
            + "' (scheme, identity, portal, daemon, readers)");
      }
      if (values.put(key, line.substring(eq + 1).strip()) != null) {
        throw new PresplitConfigException(where + ": " + key + " given twice");
      }
    }
    String scheme = values.getOrDefault("scheme", "digest");
    if (!scheme.equals("digest")) {
      throw new PresplitConfigException(origin + ": scheme '" + scheme + "' is not supported by"
          + " the credentials file (digest only; SASL is configured through the ZooKeeper"
          + " client's JAAS settings instead)");
    }
    String identity = values.get("identity");
    if (identity == null || identity.isEmpty()) {
      throw new PresplitConfigException(origin + ": missing identity");
    }
    int colon = identity.indexOf(':');
    if (colon <= 0 || colon == identity.length() - 1) {
      throw new PresplitConfigException(origin + ": identity: expected user:password");
    }
    return new CredentialsFile(origin, values, identity.substring(0, colon),
        identity.substring(colon + 1));
  }

  /** The file's name (or what the caller named the text), for messages. */
  public String origin() {
    return origin;
  }

  /** The identity's user name. */
  public String user() {
    return user;
  }

  /** The identity's password; never log or print it. */
  public String password() {
    return password;
  }

  /** {@code user:password}, as ZooKeeper's digest scheme receives it. */
  public byte[] secret() {
    return (user + ":" + password).getBytes(StandardCharsets.UTF_8);
  }

  /** The value of {@code key} ({@code portal}, {@code daemon}, {@code readers}), or null. */
  public String get(String key) {
    return values.get(key);
  }

  @Override
  public String toString() {
    return "digest:" + user + " (" + origin + ")";
  }
}
