// The C ABI version (LC_ABI_VERSION, lc_abi_version(), the SONAME major): the one literal, included
// by src/lib.rs. Bump it on any incompatible change of the C ABI (and the cargo-c SONAME with it).
0
