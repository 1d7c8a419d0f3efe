// Temporary entry point; the CLI helper replaces this file.
int main() { return 0; }
