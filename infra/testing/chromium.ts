import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Browser tests drive the machine's Chromium (a test tool's own browser download fails offline).
 * On Debian as root it is installed on first use; elsewhere the error says what to install.
 */
export function ensureChromium(): string {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (existsSync(path)) return path;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get') && !process.env.CHROMIUM_PATH;
  if (canInstall) {
    console.log('Installing Chromium from Debian packages (apt-get install chromium, about 2 minutes)…');
    const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    const install =
      update.status === 0 &&
      spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
        stdio: 'inherit',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    if (install && install.status === 0 && existsSync(path)) return path;
  }
  throw new Error(
    `No Chromium at ${path}. Install it (Debian/Ubuntu: \`sudo apt-get install chromium\`) ` +
      'or point CHROMIUM_PATH at a Chromium or Chrome binary.',
  );
}
