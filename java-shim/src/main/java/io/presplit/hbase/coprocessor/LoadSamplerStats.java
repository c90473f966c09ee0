package io.presplit.hbase.coprocessor;

import java.lang.management.ManagementFactory;
import javax.management.InstanceAlreadyExistsException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JMX view of {@link LoadSamplerRegistry}. Every attribute is computed when read, from the
 * samplers' own counters, so the request path pays nothing for it.
 */
public final class LoadSamplerStats implements LoadSamplerStatsMBean {
  private static final Logger LOG = LoggerFactory.getLogger(LoadSamplerStats.class);
  public static final String OBJECT_NAME = "io.presplit:type=LoadSampler";

  private static volatile boolean registered;

  /**
   * Registers the bean in the platform MBean server once per class loader; idempotent. A
   * failure is logged and ignored: sampling works without its JMX view.
   */
  static void registerOnce() {
    if (registered) {
      return;
    }
    synchronized (LoadSamplerStats.class) {
      if (registered) {
        return;
      }
      registered = true;
      try {
        ManagementFactory.getPlatformMBeanServer().registerMBean(new LoadSamplerStats(),
            new ObjectName(OBJECT_NAME));
      } catch (InstanceAlreadyExistsException e) {
        // Loaded by a second class loader (a coprocessor jar of another table): the first
        // registration stays, and it sees only its own loader's samplers.
        LOG.debug("presplit: {} already registered", OBJECT_NAME);
      } catch (Exception | LinkageError e) {
        LOG.warn("presplit: cannot register {}: {}", OBJECT_NAME, e.toString());
      }
    }
  }

  @Override
  public int getSampledRegions() {
    return LoadSamplerRegistry.size();
  }

  @Override
  public long getRequests() {
    long sum = 0;
    for (RegionLoadSampler s : LoadSamplerRegistry.samplers()) {
      sum += s.requests();
    }
    return sum;
  }

  @Override
  public long getRecordedRequests() {
    long sum = 0;
    for (RegionLoadSampler s : LoadSamplerRegistry.samplers()) {
      sum += s.recorded();
    }
    return sum;
  }

  @Override
  public long getSkippedRequests() {
    long sum = 0;
    for (RegionLoadSampler s : LoadSamplerRegistry.samplers()) {
      sum += s.skipped();
    }
    return sum;
  }
}
