// Page loads of the saved product pages (domcontentloaded), four Chromiums side by side,
// taking turns page by page: direct; Fetch enabled on the browser session with a pattern
// that matches nothing (as Halley's hub while no tab is watched); through a minimal
// SOCKS5 relay (relay.py); both. Started by run.sh.
const { chromium } = require('playwright-core');
const fs=require('fs');
(async()=>{
  const pages=fs.readdirSync(process.env.PAGES).filter(f=>f!=='blank.html').sort();
  const configs=[['direct',false,false],['fetch',false,true],['socks',true,false],['socks+fetch',true,true]];
  const runs=+process.argv[2]||3;
  const bs=[];
  for(const [name,socks,fetch] of configs){
    const args=['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'];
    if(socks) args.push('--proxy-server=socks5://127.0.0.1:'+process.env.SOCKS_PORT+'','--proxy-bypass-list=<-loopback>');
    const b=await chromium.launch({executablePath:'/usr/bin/chromium',headless:true,args});
    if(fetch){ const s=await b.newBrowserCDPSession(); await s.send('Fetch.enable',{patterns:[{urlPattern:'halley:nothing',requestStage:'Request'}]}); }
    const p=await b.newPage();
    await p.goto('http://127.0.0.1:'+process.env.HTTP_PORT+'/'+pages[0],{waitUntil:'domcontentloaded'});
    bs.push({name,b,p,t:[]});
  }
  for(let run=0;run<runs;run++) for(let i=0;i<pages.length;i++) for(let k=0;k<4;k++){
    const c=bs[(run+i+k)%4];
    await c.p.goto('http://127.0.0.1:'+process.env.HTTP_PORT+'/blank.html');
    const t=process.hrtime.bigint();
    try{ await c.p.goto('http://127.0.0.1:'+process.env.HTTP_PORT+'/'+pages[i],{waitUntil:'domcontentloaded',timeout:60000}); c.t.push(Number(process.hrtime.bigint()-t)/1e6);}catch(e){console.error(c.name,pages[i],e.message.slice(0,60));}
  }
  const med=a=>{a=[...a].sort((x,y)=>x-y);return a[a.length>>1];};
  const base=med(bs[0].t);
  for(const c of bs) console.log(`${c.name.padEnd(12)} n=${c.t.length} median ${med(c.t).toFixed(0)} ms  added ${((med(c.t)/base-1)*100).toFixed(1)} %`);
  for(const c of bs) await c.b.close();
})();
