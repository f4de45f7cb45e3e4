/**
 * How a pod starts: what Spring AOT fixed in the build, checked against the pod's own configuration; the beans
 * left lazy; the wait for the counter store's first connect attempt before the ports open.
 */
package dev.tollgate.check.startup;
