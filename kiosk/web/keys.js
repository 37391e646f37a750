// The public keys of the museum's kiosks whose game records this page trusts.
// One line per kiosk: its name and the key `tafl-kiosk record pubkey` prints on it
// (docs/take-home.md). A record signed by no key here shows as "not verified".
window.TAFL_TRUSTED_KEYS = [
];
