// Whether the end-to-end files about copy-on-write views can run on this machine.
import { sandboxSupport } from '../../demo/sandbox.js'
import { viewsFail } from '../../src/cage/views.js'

/** Why copy-on-write views cannot be tested here (no sandbox, or no overlay mount), or undefined. */
export async function viewsUnsupported(unshare = '/usr/bin/unshare'): Promise<string | undefined> {
  const support = await sandboxSupport()
  return support.ok ? viewsFail(unshare) : support.reason
}
