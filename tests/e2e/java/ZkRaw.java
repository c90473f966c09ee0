/*
 * ZkRaw: writes and removes znodes with the plain ZooKeeper client, byte for byte, the way a
 * faulty portal (or an operator's zkCli) would: no validation, no presplit code.
 *
 *   java -cp "$(hbase classpath)" ZkRaw HOST:PORT set PATH < bytes   creates parents as needed
 *   java -cp "$(hbase classpath)" ZkRaw HOST:PORT delete PATH        missing is fine
 *   java -cp "$(hbase classpath)" ZkRaw HOST:PORT children PATH      one name a line
 */
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

public class ZkRaw {
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: ZkRaw HOST:PORT set|delete PATH");
      System.exit(2);
    }
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk =
        new ZooKeeper(args[0], 30000, e -> {
          if (e.getState() == Watcher.Event.KeeperState.SyncConnected) connected.countDown();
        });
    if (!connected.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("no session");
    try {
      String path = args[2];
      if (args[1].equals("set")) {
        byte[] data = System.in.readAllBytes();
        StringBuilder parent = new StringBuilder();
        String[] parts = path.substring(1).split("/");
        for (int i = 0; i < parts.length - 1; i++) {
          parent.append('/').append(parts[i]);
          try {
            zk.create(parent.toString(), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT);
          } catch (KeeperException.NodeExistsException e) {
            // already there
          }
        }
        try {
          zk.setData(path, data, -1);
        } catch (KeeperException.NoNodeException e) {
          zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        }
      } else if (args[1].equals("delete")) {
        try {
          zk.delete(path, -1);
        } catch (KeeperException.NoNodeException e) {
          // already gone
        }
      } else if (args[1].equals("children")) {
        for (String child : zk.getChildren(path, false)) {
          System.out.println(child);
        }
      } else {
        System.err.println("unknown command " + args[1]);
        System.exit(2);
      }
    } finally {
      zk.close();
    }
  }
}
