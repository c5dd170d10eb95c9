# A minimal SOCKS5 relay (no authentication, CONNECT only): connections to
# 127.0.0.1 go through, any other host is answered "host unreachable" at once,
# as the benchmarks' MAP * ~NOTFOUND rule makes them fail. See run.sh.
import asyncio,sys,struct
async def pipe(r,w):
    try:
        while True:
            b=await r.read(65536)
            if not b: break
            w.write(b); await w.drain()
    except Exception: pass
    finally:
        try: w.close()
        except Exception: pass
async def handle(r,w):
    try:
        h=await r.readexactly(2); await r.readexactly(h[1]); w.write(b'\x05\x00')
        req=await r.readexactly(4)
        if req[3]==1: host='.'.join(map(str,await r.readexactly(4)))
        elif req[3]==3:
            l=(await r.readexactly(1))[0]; host=(await r.readexactly(l)).decode()
        else: host='::'; await r.readexactly(16)
        port=struct.unpack('>H',await r.readexactly(2))[0]
        if host!='127.0.0.1':
            w.write(bytes([5,4,0,1,0,0,0,0,0,0])); await w.drain(); w.close(); return
        ur,uw=await asyncio.open_connection(host,port)
        w.write(bytes([5,0,0,1,0,0,0,0,0,0])); await w.drain()
        await asyncio.gather(pipe(r,uw),pipe(ur,w))
    except Exception as e: 
        try: w.close()
        except Exception: pass
async def main():
    s=await asyncio.start_server(handle,'127.0.0.1',int(sys.argv[1])); await s.serve_forever()
asyncio.run(main())
