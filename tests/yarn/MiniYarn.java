import java.io.File;
import java.io.FileOutputStream;
import java.io.FileWriter;
import java.io.Writer;
import java.nio.file.Files;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Runs Hadoop's single-process YARN (a ResourceManager, one NodeManager, the job history server)
 * until the JVM is told to stop (SIGTERM: a shutdown hook stops the cluster), and writes its
 * client configuration as CONF_DIR/mapred-site.xml: a Hadoop configuration directory presplit's
 * jobs take as {@code hadoop_conf_dir}. Then it writes one line to UP_FIFO (a named pipe the
 * caller blocks on: the event "YARN is up", without polling).
 *
 * <p>Usage: {@code MiniYarn CONF_DIR UP_FIFO CONTAINER_CLASSPATH CONTAINER_JVM_FLAGS}. A
 * NodeManager of a real cluster finds Hadoop's jars in its installation; this one has none, so
 * the containers get CONTAINER_CLASSPATH (one manifest-only jar naming every jar: a classpath of
 * hundreds of entries in the environment overflows the container's launch command).
 */
public final class MiniYarn {
  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: MiniYarn CONF_DIR UP_FIFO CONTAINER_CLASSPATH JVM_FLAGS");
      System.exit(2);
    }
    long started = System.nanoTime();
    File confDir = new File(args[0]);
    File upFifo = new File(args[1]);
    Configuration conf = new YarnConfiguration();
    conf.set("fs.defaultFS", "file:///");
    conf.setInt("yarn.nodemanager.resource.memory-mb", 6144);
    conf.setInt("yarn.nodemanager.resource.cpu-vcores", 4);
    conf.setInt("yarn.scheduler.minimum-allocation-mb", 256);
    MiniMRYarnCluster cluster = new MiniMRYarnCluster("presplit", 1);
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::stop, "stop-mini-yarn"));
    cluster.init(conf);
    cluster.start();
    Configuration client = cluster.getConfig();
    client.set("mapreduce.application.classpath", args[2]);
    client.set("yarn.application.classpath", args[2]);
    // HBase's client on JDK 17 needs the same --add-opens in the tasks as in any HBase JVM.
    client.set("yarn.app.mapreduce.am.command-opts", "-Xmx512m " + args[3]);
    client.set("mapreduce.map.java.opts", "-Xmx512m " + args[3]);
    client.set("mapreduce.reduce.java.opts", "-Xmx512m " + args[3]);
    confDir.mkdirs();
    File written = new File(confDir, "mapred-site.xml.tmp");
    try (FileOutputStream out = new FileOutputStream(written)) {
      client.writeXml(out);
    }
    Files.move(written.toPath(), new File(confDir, "mapred-site.xml").toPath());
    String up = "MiniYarn: up in " + (System.nanoTime() - started) / 1_000_000
        + " ms, ResourceManager " + client.get("yarn.resourcemanager.address");
    System.out.println(up);
    try (Writer fifo = new FileWriter(upFifo)) {  // blocks until the caller reads
      fifo.write(up + "\n");
    }
    Thread.currentThread().join();  // until SIGTERM; the shutdown hook stops the cluster
  }
}
