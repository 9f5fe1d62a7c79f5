#include <cstdio>
int main() { std::puts("rdmasim: under construction"); return 0; }
