/**
 * Issue 47, item 6: a desktop notification never goes through a shell, and its text is
 * data to the program (an argument after `--`, osascript's argv, PowerShell's environment).
 */
import { describe, expect, it } from 'vitest';
import { desktopCommand } from '../../src/local/desktop-notify.js';

const EVIL = '"; rm -rf ~; echo "$(whoami)` --help <b>x</b> & \'quote\'';
const all = () => true;

describe('desktop notifications', () => {
  it('notify-send: title and body as arguments after --, the body\'s markup escaped', () => {
    const c = desktopCommand('linux', all, 'hostsync: crash', EVIL)!;
    expect(c.command).toBe('notify-send');
    expect(c.args.slice(-3)).toEqual(['--', 'hostsync: crash', EVIL.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')]);
  });

  it('osascript: the text is argv of a fixed script, never part of it', () => {
    const c = desktopCommand('darwin', all, EVIL, 'body')!;
    expect(c.command).toBe('osascript');
    expect(c.args.slice(-2)).toEqual([EVIL, 'body']);
    expect(c.args.slice(0, -2).join(' ')).not.toContain(EVIL);
  });

  it('PowerShell: the script is fixed; the text travels in environment variables', () => {
    const c = desktopCommand('win32', (p) => p === 'powershell.exe', 'title', EVIL)!;
    expect(c.command).toBe('powershell.exe');
    expect(c.args.join(' ')).not.toContain(EVIL);
    expect(c.env).toEqual({ HOSTSYNC_NOTIFY_TITLE: 'title', HOSTSYNC_NOTIFY_BODY: EVIL });
  });

  it('nothing when no program exists', () => {
    expect(desktopCommand('linux', () => false, 't', 'b')).toBeNull();
    expect(desktopCommand('win32', () => false, 't', 'b')).toBeNull();
    expect(desktopCommand('darwin', () => false, 't', 'b')).toBeNull();
  });
});
