/** Redis key names, built server-side so that no character a caller sends can pick a slot or collide two keys. */
package dev.tollgate.store.key;
