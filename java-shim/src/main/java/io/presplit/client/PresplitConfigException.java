package io.presplit.client;

import java.io.IOException;

/**
 * The table's document or status in ZooKeeper is missing, unreadable or describes a layout the
 * SDK cannot use; or ZooKeeper cannot be reached.
 */
public class PresplitConfigException extends IOException {
  private static final long serialVersionUID = 1L;

  public PresplitConfigException(String message) {
    super(message);
  }

  public PresplitConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
