package io.presplit.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SDK's reading of presplit's ZooKeeper credentials file, without a server. */
class ZkAuthTest {

  @Test
  void readsTheIdentityOfACredentialsFileAndIgnoresItsAcls() throws Exception {
    ZkAuth auth = ZkAuth.parse("# a writer\nscheme = digest\nidentity = writer:s3cret:x\n"
        + "portal = portal:16ciC4sAPjH/zeFdaN3ZY7WdiuQ=\ndaemon = daemon:x\nreaders = writer\n",
        "writer.conf");
    assertEquals("digest", auth.scheme);
    assertEquals("writer", auth.user);
    assertArrayEquals("writer:s3cret:x".getBytes(StandardCharsets.UTF_8), auth.secret());
    assertEquals("digest:writer", auth.toString());
  }

  @Test
  void refusalsNameTheProblemNeverThePassword() {
    String[][] cases = {
        {"portal = p\n", "missing identity"},
        {"identity = s3cret\n", "identity: expected user:password"},
        {"identity = w:s3cret\npassword = s3cret\n", "unknown key 'password'"},
        {"identity = w:s3cret\nidentity = w:s3cret\n", "identity given twice"},
        {"identity = w:s3cret\ns3cret\n", "line 2: expected key = value"},
        {"scheme = sasl\nidentity = w:s3cret\n", "scheme 'sasl' is not supported"},
    };
    for (String[] c : cases) {
      PresplitConfigException e = assertThrows(PresplitConfigException.class,
          () -> ZkAuth.parse(c[0], "f.conf"));
      assertTrue(e.getMessage().contains(c[1]), e.getMessage());
      assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
    }
  }

  @Test
  void digestFromUserAndPassword() {
    ZkAuth auth = ZkAuth.digest("writer", "pw");
    assertArrayEquals("writer:pw".getBytes(StandardCharsets.UTF_8), auth.secret());
    assertThrows(IllegalArgumentException.class, () -> ZkAuth.digest("a:b", "pw"));
    assertThrows(IllegalArgumentException.class, () -> ZkAuth.digest("writer", ""));
  }

  @Test
  void readsAFileAndOptionsKeepIt(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("zk-auth.conf");
    Files.writeString(file, "identity = writer:pw\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    PresplitTables.Options options = new PresplitTables.Options().authFile(file);
    assertEquals("digest:writer", options.auth.toString());
    assertThrows(PresplitConfigException.class,
        () -> new PresplitTables.Options().authFile(dir.resolve("missing.conf")));
  }
}
