/** Where a pod's admitted requests are counted for the budget rebalancer (issue: one limit across regions). */
package dev.tollgate.limiter.usage;
