import java.io.File;
import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Runs Hadoop's single-process YARN (a ResourceManager, one NodeManager, the job history server)
 * until a stop file appears, and writes its client configuration as CONF_DIR/mapred-site.xml: a
 * Hadoop configuration directory presplit's jobs take as {@code hadoop_conf_dir}.
 *
 * <p>Usage: {@code MiniYarn CONF_DIR STOP_FILE CONTAINER_CLASSPATH CONTAINER_JVM_FLAGS}. A
 * NodeManager of a real cluster finds Hadoop's jars in its installation; this one has none, so
 * the containers get CONTAINER_CLASSPATH (one manifest-only jar naming every jar: a classpath of
 * hundreds of entries in the environment overflows the container's launch command).
 */
public final class MiniYarn {
  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: MiniYarn CONF_DIR STOP_FILE CONTAINER_CLASSPATH JVM_FLAGS");
      System.exit(2);
    }
    long started = System.nanoTime();
    File confDir = new File(args[0]);
    Path stopFile = Path.of(args[1]);
    Configuration conf = new YarnConfiguration();
    conf.set("fs.defaultFS", "file:///");
    conf.setInt("yarn.nodemanager.resource.memory-mb", 6144);
    conf.setInt("yarn.nodemanager.resource.cpu-vcores", 4);
    conf.setInt("yarn.scheduler.minimum-allocation-mb", 256);
    MiniMRYarnCluster cluster = new MiniMRYarnCluster("presplit", 1);
    cluster.init(conf);
    cluster.start();
    try {
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
      // renamed into place: a reader never sees half a file
      Files.move(written.toPath(), new File(confDir, "mapred-site.xml").toPath());
      System.out.println("MiniYarn: up in " + (System.nanoTime() - started) / 1_000_000
          + " ms, ResourceManager " + client.get("yarn.resourcemanager.address"));
      System.out.flush();
      while (!Files.exists(stopFile)) {
        Thread.sleep(200);
      }
    } finally {
      cluster.stop();
    }
  }
}
