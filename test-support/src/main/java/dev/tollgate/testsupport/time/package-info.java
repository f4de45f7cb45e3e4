/**
 * Time a test moves by hand, so a lifetime in minutes or a window in seconds is tested in milliseconds
 * and without sleeping.
 */
package dev.tollgate.testsupport.time;
