/*
 * A stand-in for Windows' bcryptprimitives.dll under Wine 8.0 (Debian bookworm's), which does not
 * have it: ProcessPrng, the one function the Rust standard library imports from it (its random
 * source on Windows 10 and later), over RtlGenRandom (advapi32's SystemFunction036), which Wine
 * has. scripts/release --check builds it with mingw-w64 and puts it beside the programs it runs
 * under wine; it is never shipped, and Windows itself needs nothing of the kind.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG n = length > 0x7fffffffu ? 0x7fffffffu : (ULONG)length;
        if (!SystemFunction036(data, n)) {
            return FALSE;
        }
        data += n;
        length -= n;
    }
    return TRUE;
}
