import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The end-to-end tests' HBase and HDFS client on the Kerberized cluster on HDFS
 * (scripts/local-cluster --kerberos --hdfs): logs in from a keytab, then does one thing. The
 * cluster's conf directory (hbase-site.xml, core-site.xml, hdfs-site.xml) comes first on the
 * classpath; -Djava.security.krb5.conf names the KDC.
 *
 * <pre>
 *   KerberosHdfsProbe PRINCIPAL KEYTAB put-get TABLE ROW VALUE   creates TABLE (family f) unless
 *                                                                it exists, puts f:q = VALUE in
 *                                                                ROW, gets it back
 *   KerberosHdfsProbe PRINCIPAL KEYTAB hdfs-write PATH TEXT      writes PATH (on fs.defaultFS),
 *                                                                then "OWNER PERMISSION"
 *   KerberosHdfsProbe PRINCIPAL KEYTAB hdfs-read PATH            its text
 *   KerberosHdfsProbe PRINCIPAL KEYTAB hdfs-rename SRC DST       "renamed"
 *   KerberosHdfsProbe PRINCIPAL KEYTAB hdfs-stat PATH            "OWNER:GROUP PERMISSION ACL"
 *   KerberosHdfsProbe PRINCIPAL KEYTAB hdfs-list PATH            its entries' names, sorted,
 *                                                                comma-separated ("-": none)
 *   KerberosHdfsProbe PRINCIPAL KEYTAB grant-global USER ACTIONS a global grant (RWXCA)
 * </pre>
 *
 * The answer is printed as one line "RESULT value" on stdout; errors go to stderr as one line
 * (the exception's class and the first line of its message), exit 1.
 */
public final class KerberosHdfsProbe {
  private KerberosHdfsProbe() {}

  public static void main(String[] args) {
    int rc = 0;
    try {
      System.out.println("RESULT " + run(args));
    } catch (Throwable t) {
      String message = String.valueOf(t.getMessage());
      int nl = message.indexOf('\n');
      System.err.println("KerberosHdfsProbe: " + t.getClass().getName() + ": "
          + (nl < 0 ? message : message.substring(0, nl)));
      rc = 1;
    }
    System.exit(rc);
  }

  private static String run(String[] args) throws Throwable {
    if (args.length < 3) {
      throw new IllegalArgumentException("usage: KerberosHdfsProbe PRINCIPAL KEYTAB COMMAND ARGS");
    }
    Configuration conf = HBaseConfiguration.create();
    conf.set("hadoop.security.authentication", "kerberos");
    conf.setInt("hbase.client.retries.number", 3);
    UserGroupInformation.setConfiguration(conf);
    UserGroupInformation.loginUserFromKeytab(args[0], args[1]);
    String command = args[2];
    String[] rest = Arrays.copyOfRange(args, 3, args.length);
    if (command.equals("grant-global")) {
      try (Connection c = ConnectionFactory.createConnection(conf)) {
        Permission.Action[] actions = rest[1].chars()
            .mapToObj(ch -> Permission.Action.valueOf(switch (ch) {
              case 'R' -> "READ";
              case 'W' -> "WRITE";
              case 'X' -> "EXEC";
              case 'C' -> "CREATE";
              default -> "ADMIN";
            }))
            .toArray(Permission.Action[]::new);
        AccessControlClient.grant(c, rest[0], actions);
        return rest[0] + " " + rest[1];
      }
    }
    if (command.equals("put-get")) {
      return putGet(conf, TableName.valueOf(rest[0]), Bytes.toBytes(rest[1]), rest[2]);
    }
    try (FileSystem fs = FileSystem.newInstance(conf)) {
      switch (command) {
        case "hdfs-write": {
          Path path = new Path(rest[0]);
          try (FSDataOutputStream out = fs.create(path, true)) {
            out.write(rest[1].getBytes(StandardCharsets.UTF_8));
          }
          FileStatus st = fs.getFileStatus(path);
          return st.getOwner() + " " + st.getPermission();
        }
        case "hdfs-read": {
          ByteArrayOutputStream text = new ByteArrayOutputStream();
          try (FSDataInputStream in = fs.open(new Path(rest[0]))) {
            in.transferTo(text);
          }
          return text.toString(StandardCharsets.UTF_8);
        }
        case "hdfs-rename":
          if (!fs.rename(new Path(rest[0]), new Path(rest[1]))) {
            throw new java.io.IOException("rename " + rest[0] + " to " + rest[1] + " failed");
          }
          return "renamed";
        case "hdfs-stat": {
          Path path = new Path(rest[0]);
          FileStatus st = fs.getFileStatus(path);
          return st.getOwner() + ":" + st.getGroup() + " " + st.getPermission() + " "
              + fs.getAclStatus(path).getEntries();
        }
        case "hdfs-list": {
          java.util.TreeSet<String> names = new java.util.TreeSet<>();
          for (FileStatus st : fs.listStatus(new Path(rest[0]))) {
            names.add(st.getPath().getName());
          }
          return names.isEmpty() ? "-" : String.join(",", names);
        }
        default:
          throw new IllegalArgumentException("unknown command " + command);
      }
    }
  }

  private static String putGet(Configuration conf, TableName name, byte[] row, String value)
      throws Exception {
    byte[] f = Bytes.toBytes("f");
    byte[] q = Bytes.toBytes("q");
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      if (!admin.tableExists(name)) {
        admin.createTable(TableDescriptorBuilder.newBuilder(name)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(f)).build());
      }
      try (Table t = c.getTable(name)) {
        t.put(new Put(row).addColumn(f, q, Bytes.toBytes(value)));
        return Bytes.toString(t.get(new Get(row)).getValue(f, q));
      }
    }
  }
}
