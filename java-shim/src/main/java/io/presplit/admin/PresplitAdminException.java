package io.presplit.admin;

import java.io.IOException;

/** A failure of {@link PresplitAdmin}: ZooKeeper unreachable or refusing, a refused request. */
public class PresplitAdminException extends IOException {
  private static final long serialVersionUID = 1L;

  public PresplitAdminException(String message) {
    super(message);
  }

  public PresplitAdminException(String message, Throwable cause) {
    super(message, cause);
  }
}
